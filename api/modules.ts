/**
 * The API is assembled from modules: the core resources here, and later the AS2, file,
 * HTTP and notification modules. Each registers its routes and may add OpenAPI parts.
 */
import type { PluginType } from '../actors/index.js';
import type { ApiContext } from './context.js';
import type { ApiRouter } from './http/router.js';
import type { OpenApiContribution } from './openapi/document.js';
import { registerApiTokenRoutes } from './resources/api-tokens/routes.js';
import { registerAs2ProfileRoutes } from './resources/as2-profiles/routes.js';
import { registerAuditRoutes } from './resources/audit/routes.js';
import { registerCemRoutes } from './resources/cem/routes.js';
import { registerControlNumberRoutes } from './resources/control-numbers/routes.js';
import { registerCertificateRoutes } from './resources/certificates/routes.js';
import { registerEventRoutes } from './resources/events/routes.js';
import { registerNotificationRoutes } from './resources/notifications/routes.js';
import { registerHealthRoutes } from './resources/health/routes.js';
import { registerPartyRoutes } from './resources/parties/routes.js';
import { registerPartnerStatusRoutes } from './resources/partner-status/routes.js';
import { registerPluginConfigRoutes } from './resources/plugin-configs/routes.js';
import { registerMessageRoutes } from './resources/messages/routes.js';
import { registerOidcProviderRoutes } from './resources/oidc-providers/routes.js';
import { registerConfigRoutes } from './resources/config/routes.js';
import { registerRouteRoutes } from './resources/message-routes/routes.js';
import { registerServiceRoutes } from './resources/service-actions/routes.js';
import { registerServiceAccountRoutes } from './resources/service-accounts/routes.js';
import { registerSettingsRoutes } from './resources/settings/routes.js';
import { registerServerLogRoutes } from './resources/server-log/routes.js';
import { registerSftpRoutes } from './resources/sftp/routes.js';
import { registerStatsRoutes } from './resources/stats/routes.js';
import { componentName, pluginConfigSchemas } from './schemas/plugin-config.js';
import { alertWebhook } from './schemas/notification.js';
import { EdiJsonDocument } from './schemas/edi-json.js';

export interface ApiModule {
  name: string;
  register(router: ApiRouter, ctx: ApiContext): void;
  openapi?: OpenApiContribution;
}

export const coreModule: ApiModule = {
  openapi: { schemas: { EdiJson: EdiJsonDocument } },
  name: 'core',
  register(router, ctx) {
    registerHealthRoutes(router, ctx);
    registerPartyRoutes(router, ctx);
    registerPartnerStatusRoutes(router, ctx);
    registerControlNumberRoutes(router, ctx);
    registerServiceAccountRoutes(router, ctx);
    registerOidcProviderRoutes(router, ctx);
    registerApiTokenRoutes(router, ctx);
    registerSettingsRoutes(router, ctx);
    registerAuditRoutes(router, ctx);
    registerServerLogRoutes(router, ctx);
    registerCertificateRoutes(router, ctx);
    registerPluginConfigRoutes(router, ctx);
    registerRouteRoutes(router, ctx);
    registerConfigRoutes(router, ctx);
    registerServiceRoutes(router, ctx);
    registerMessageRoutes(router, ctx);
    registerStatsRoutes(router, ctx);
    registerEventRoutes(router, ctx);
  },
};

/**
 * A module of plugin types: contributes each type's configuration schemas to the document,
 * and registers the module's own records.
 */
function pluginModule(
  name: string,
  types: PluginType[],
  register: ApiModule['register'] = () => {},
): ApiModule {
  return {
    name,
    register,
    openapi: {
      schemas: Object.fromEntries(
        types.flatMap((t) => [
          [componentName(t), pluginConfigSchemas[t].record],
          [componentName(t, 'Create'), pluginConfigSchemas[t].create],
          [componentName(t, 'Update'), pluginConfigSchemas[t].update],
        ]),
      ),
    },
  };
}

export const fileModule = pluginModule('file', ['file-poller', 'file-writer']);
export const httpModule = pluginModule('http', ['http-poster']);
/** Programs run for delivered documents (docs/decisions/a-program-runs-as-a-route-s-target-without-a-shell.md). */
export const programModule = pluginModule('program', ['program-runner']);
/** SFTP: its plugin types, their connection check and host key pinning. */
export const sftpModule = pluginModule('sftp', ['sftp-poller', 'sftp-sender'], registerSftpRoutes);
/** AS2: its plugin types and its records, the partner agreements (profiles). */
export const as2Module = pluginModule('as2', ['as2-receiver', 'as2-sender'], registerAs2ProfileRoutes);
/** Certificate exchange (CEM) with AS2 partners: its records; it travels through the AS2 plugin types. */
export const cemModule: ApiModule = { name: 'cem', register: registerCemRoutes };
const notificationPlugins = pluginModule(
  'notifications',
  ['notification-webhook', 'notification-email'],
  registerNotificationRoutes,
);
export const notificationsModule: ApiModule = {
  ...notificationPlugins,
  openapi: { ...notificationPlugins.openapi, webhooks: { alert: alertWebhook } },
};

/** Every installed module, in registration order. */
export const installedModules: ApiModule[] = [
  coreModule,
  as2Module,
  cemModule,
  fileModule,
  httpModule,
  programModule,
  sftpModule,
  notificationsModule,
];
