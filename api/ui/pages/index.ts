/** Registers every page module of the web UI. */
import type { FastifyInstance } from 'fastify';
import type { UiDeps } from '../components/request-context.js';
import { registerAdminPages } from './admin.js';
import { registerCertificatePages } from './certificates.js';
import { registerCemPages } from './cem.js';
import { registerConfigFilePages } from './config-files.js';
import { registerDashboard } from './dashboard.js';
import { registerInstancePages } from './instances.js';
import { registerMessagePages } from './messages.js';
import { registerEdiTree } from '../edi-tree.js';
import { registerNotificationPages } from './notifications.js';
import { registerSendEdiJson } from './send-edi-json.js';
import { registerServerLogPage } from './server-log.js';
import { registerWizard } from './wizard/index.js';

export function registerPages(app: FastifyInstance, deps: UiDeps): void {
  registerDashboard(app, deps);
  if (deps.api.has('GET', '/messages')) {
    registerMessagePages(app, deps);
    registerEdiTree(app, deps);
    if (deps.api.has('POST', '/messages/edi')) registerSendEdiJson(app, deps);
  }
  if (deps.api.has('GET', '/certificates')) registerCertificatePages(app, deps);
  if (deps.api.has('GET', '/services')) registerInstancePages(app, deps);
  if (deps.api.has('GET', '/notifications')) registerNotificationPages(app, deps);
  if (deps.api.has('GET', '/as2/remote-profiles')) registerWizard(app, deps);
  if (deps.api.has('GET', '/cem/exchanges')) registerCemPages(app, deps);
  if (deps.api.has('GET', '/config')) registerConfigFilePages(app, deps);
  if (deps.api.has('GET', '/server-log')) registerServerLogPage(app, deps);
  registerAdminPages(app, deps);
}
