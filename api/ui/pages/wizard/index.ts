/**
 * Partner onboarding in one flow (docs/partner-setup.md, "From the web UI"): from nothing to a
 * working exchange, each step one form that makes what it needs through the API's own routes.
 */
import type { FastifyInstance } from 'fastify';
import type { UiDeps } from '../../components/request-context.js';
import { registerCheckStep } from './check-step.js';
import { registerInstancesStep } from './instances-step.js';
import { registerOrganizationStep } from './organization-step.js';
import { registerOverview } from './overview.js';
import { registerPartnerStep } from './partner-step.js';
import { registerProfileStep } from './profile-step.js';
import { registerRoutesStep } from './routes-step.js';

export function registerWizard(app: FastifyInstance, deps: UiDeps): void {
  registerOverview(app, deps);
  registerOrganizationStep(app, deps);
  registerPartnerStep(app, deps);
  registerProfileStep(app, deps);
  registerInstancesStep(app, deps);
  registerRoutesStep(app, deps);
  registerCheckStep(app, deps);
}
