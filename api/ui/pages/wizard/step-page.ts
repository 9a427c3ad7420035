/**
 * A wizard step as the page frame sees it: GET draws the step, POST does its work; both start
 * from a PageRequest, and a refused POST draws the step again with the answer's status and notices.
 */
import type { FastifyInstance } from 'fastify';
import { openPage, type Answer, type PageRequest } from '../../components/index.js';
import type { UiDeps } from '../../components/request-context.js';
import { loadState, type WizardState } from './state.js';

/** Draws the step; `form` is what a refused submission sent back (or the step's own extra). */
export type StepPage<F> = (p: PageRequest, form?: F, answer?: Answer) => Promise<unknown>;

export function registerStepRoutes<F>(
  app: FastifyInstance,
  deps: UiDeps,
  path: string,
  page: StepPage<F>,
  submit: (p: PageRequest) => Promise<unknown>,
): void {
  app.get(path, (request, reply) => page(openPage(deps, request, reply)));
  app.post(path, (request, reply) => submit(openPage(deps, request, reply)));
}

/** The run's state for a step's page (parties, profiles, instances, routes, readiness). */
export function stepState(p: PageRequest): Promise<WizardState> {
  return loadState(p.deps, p.ui, p.request, p.reply);
}
