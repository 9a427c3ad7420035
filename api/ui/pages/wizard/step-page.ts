/**
 * A wizard step as the page frame sees it: GET draws the step, POST does its work; both start
 * from a PageRequest, and a refused POST draws the step again with the answer's status and notices.
 */
import type { FastifyInstance } from 'fastify';
import { toApiError } from '../../../plugins/error-handler.js';
import type { FormState } from '../../form.js';
import { openPage, refused, refusedState, type Answer, type PageRequest } from '../../components/index.js';
import type { UiDeps } from '../../components/request-context.js';
import { keptValues } from './form-values.js';
import { readFilesForm, type FilesForm } from './multipart.js';
import { loadState, type WizardState } from './state.js';
import { StepWork } from './step-work.js';

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

/** What a step with uploads does its work with: the form as read, the work, and its refusal. */
export interface UploadStep {
  form: FilesForm;
  work: StepWork;
  /** The submitted values the step is drawn again with (write-only ones left out). */
  keep: FormState['values'];
  /** Takes back what the work made and draws the step again with what it placed. */
  refused: () => Promise<unknown>;
}

/**
 * A step whose form carries files (a certificate, a key): its POST reads the upload first, and one
 * the server refuses (too large, not multipart) draws the step again with the refusal.
 */
export function registerUploadStepRoutes(
  app: FastifyInstance,
  deps: UiDeps,
  path: string,
  page: StepPage<FormState>,
  fileFields: readonly string[],
  submit: (p: PageRequest, step: UploadStep) => Promise<unknown>,
): void {
  registerStepRoutes(app, deps, path, page, async (p) => {
    let form: FilesForm;
    try {
      form = await readFilesForm(p.request, fileFields);
    } catch (error) {
      const known = toApiError(error, p.request);
      if (!known) throw error;
      return page(p, refusedState(known), refused(known));
    }
    const work = new StepWork(deps, p.ui, p.request, p.reply);
    const keep = keptValues(form.fields);
    return submit(p, { form, work, keep, refused: async () => page(p, ...(await work.refusal(keep))) });
  });
}

/** The run's state for a step's page (parties, profiles, instances, routes, readiness). */
export function stepState(p: PageRequest): Promise<WizardState> {
  return loadState(p.deps, p.ui, p.request, p.reply);
}
