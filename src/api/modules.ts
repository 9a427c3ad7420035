/**
 * The API is assembled from modules: the core resources here, and later the AS2, file,
 * HTTP and notification modules. Each registers its routes and may add OpenAPI parts.
 */
import type { ApiContext } from './context.js';
import type { ApiRouter } from './http/router.js';
import type { OpenApiContribution } from './openapi/document.js';
import { registerApiTokenRoutes } from './resources/api-tokens/routes.js';
import { registerAs2ProfileRoutes } from './resources/as2-profiles/routes.js';
import { registerAuditRoutes } from './resources/audit/routes.js';
import { registerCertificateRoutes } from './resources/certificates/routes.js';
import { registerHealthRoutes } from './resources/health/routes.js';
import { registerPartyRoutes } from './resources/parties/routes.js';
import { registerServiceAccountRoutes } from './resources/service-accounts/routes.js';
import { registerSettingsRoutes } from './resources/settings/routes.js';

export interface ApiModule {
  name: string;
  register(router: ApiRouter, ctx: ApiContext): void;
  openapi?: OpenApiContribution;
}

export const coreModule: ApiModule = {
  name: 'core',
  register(router, ctx) {
    registerHealthRoutes(router, ctx);
    registerPartyRoutes(router, ctx);
    registerServiceAccountRoutes(router, ctx);
    registerApiTokenRoutes(router, ctx);
    registerSettingsRoutes(router, ctx);
    registerAuditRoutes(router, ctx);
    registerCertificateRoutes(router, ctx);
  },
};

/** The AS2 module's records: partner agreements (its plugins come with the runtime). */
export const as2Module: ApiModule = {
  name: 'as2',
  register(router, ctx) {
    registerAs2ProfileRoutes(router, ctx);
  },
};

/** Every installed module, in registration order. */
export const installedModules: ApiModule[] = [coreModule, as2Module];
