/** Registers every page module of the web UI. */
import type { FastifyInstance } from 'fastify';
import type { UiDeps } from './common.js';
import { registerDashboard } from './dashboard.js';
import { registerMessagePages } from './messages.js';

export function registerPages(app: FastifyInstance, deps: UiDeps): void {
  registerDashboard(app, deps);
  if (deps.api.has('GET', '/messages')) registerMessagePages(app, deps);
}
