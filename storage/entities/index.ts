/** Every entity the ORM knows; listed explicitly, no folder discovery. */
import { As2LocalProfileSchema, As2ProfileCertificateSchema, As2RemoteProfileSchema } from './as2-profile.js';
import { AuditEventSchema } from './audit-event.js';
import { CertificateImportSchema, CertificateRequestSchema, CertificateSchema } from './certificate.js';
import { OrganizationSchema, PartnerSchema } from './party.js';
import { PluginConfigSchema } from './plugin-config.js';
import { RouteSchema } from './route.js';
import { ApiTokenSchema, ServiceAccountSchema } from './service-account.js';
import { SettingsSchema } from './settings.js';
import { UserSchema } from './user.js';
import { OidcProviderSchema, UiSessionSchema } from './identity.js';

export const entities = [
  OrganizationSchema,
  PartnerSchema,
  ServiceAccountSchema,
  ApiTokenSchema,
  UserSchema,
  SettingsSchema,
  AuditEventSchema,
  CertificateSchema,
  CertificateImportSchema,
  CertificateRequestSchema,
  As2LocalProfileSchema,
  As2RemoteProfileSchema,
  As2ProfileCertificateSchema,
  PluginConfigSchema,
  RouteSchema,
  OidcProviderSchema,
  UiSessionSchema,
];
