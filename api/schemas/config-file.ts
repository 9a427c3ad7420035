/**
 * The configuration file (docs/configuration-files.md): an install's organizations, partners,
 * AS2 profiles, certificates, plugin instances, routes and settings in one document that names
 * everything by name, never by a database id, so it applies to any install. Imports nothing
 * server-side: the JSON Schema published at /api/v1/config/schema is made from it.
 */
import { z } from 'zod';
import { pluginTypes } from '../../actors/index.js';
import { recordName, singleLineText } from './common.js';
import { LocalProfileCreate, RemoteProfileCreate } from './as2-profile.js';
import { PartnerCreate, PartyCreate } from './party.js';
import { RouteCreate } from './route.js';
import { SettingsFields } from './settings.js';

/**
 * The environment variables a file may read: those the export writes, one per secret named
 * after its place. A file may come from anyone allowed to plan it, so it must not read the
 * process's other variables (PIER_SECRET_KEY, DATABASE_URL…), nor learn whether they are set.
 */
export const fileVariablePrefixes = ['PIER_PARTNER_', 'PIER_INSTANCE_'] as const;

/** Whether `${env:NAME}` in a file may read NAME. */
export function isFileVariable(name: string): boolean {
  return fileVariablePrefixes.some((prefix) => name.startsWith(prefix) && name.length > prefix.length);
}

export const fileVariablesText = fileVariablePrefixes.map((prefix) => `${prefix}…`).join(' or ');

/** A secret is never written in clear: `${env:NAME}` names the environment variable apply reads it from. */
export const secretReference = z
  .string()
  .regex(
    new RegExp(`^\\$\\{env:(${fileVariablePrefixes.join('|')})[A-Za-z0-9_]+\\}$`),
    `Write a secret as a reference to an environment variable named ${fileVariablesText}, such as \${env:PIER_PARTNER_ACME_HTTP_BASIC_PASSWORD}; a secret in clear, or any other variable, is refused`,
  )
  .describe(
    `\${env:NAME}: the value of the environment variable NAME where the file is applied; NAME starts with ${fileVariablePrefixes.join(' or ')}`,
  );

export const certificateName = singleLineText(200)
  .min(1)
  .describe("A certificate's name in this file: the name the other sections refer to it by");

/** Private keys travel only as a reference to the install's stored key, or sealed with its secret key. */
export const privateKeyReference = z.union([
  z.literal('stored').describe('The install holds the private key of this certificate already'),
  z
    .strictObject({ sealed: z.string().min(1) })
    .describe("The PKCS#8 key sealed with the install's secret key (pier config export --seal-keys)"),
]);

export const ConfigCertificate = z.strictObject({
  name: certificateName,
  description: singleLineText(200)
    .optional()
    .describe('The description stored with it; when left out, the name, so the next export keeps the name'),
  pem: z.string().min(1).describe('The certificate, PEM (public part only)'),
  private_key: privateKeyReference.optional(),
});

const withoutIds = { id: true, created_at: true, updated_at: true } as const;

export const ConfigLocalAs2 = LocalProfileCreate.omit({
  local_organization_id: true,
  signing_certificate_id: true,
  decryption_certificate_ids: true,
  created_at: true,
  updated_at: true,
}).extend({
  signing_certificate: certificateName,
  decryption_certificates: z.array(certificateName).optional(),
});

export const ConfigRemoteAs2 = RemoteProfileCreate.omit({
  business_partner_id: true,
  partner_certificate_id: true,
  signature_certificate_ids: true,
  tls_trusted_certificate_ids: true,
  tls_client_certificate_id: true,
  http_basic_password: true,
  http_headers: true,
  http_basic_password_set: true,
  http_headers_set: true,
  created_at: true,
  updated_at: true,
}).extend({
  partner_certificate: certificateName.nullable().default(null),
  signature_certificates: z.array(certificateName).optional(),
  tls_trusted_certificates: z.array(certificateName).default([]),
  tls_client_certificate: certificateName.nullable().default(null),
  http_basic_password: secretReference.optional(),
  http_headers: secretReference
    .optional()
    .describe('${env:NAME}: the variable holds the headers as JSON, [{"name": …, "value": …}]'),
});

export const ConfigOrganization = PartyCreate.omit(withoutIds).extend({
  as2: ConfigLocalAs2.optional(),
});

export const ConfigPartner = PartnerCreate.omit(withoutIds).extend({
  as2: ConfigRemoteAs2.optional(),
});

export const ConfigInstance = z.strictObject({
  type: z.enum(pluginTypes),
  name: recordName,
  enabled: z.boolean().default(true),
  settings: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      "The type's settings (docs/api/plugin-configs.md); a setting naming a certificate takes its name",
    ),
  secrets: z.record(z.string(), secretReference).default({}).describe('Write-only settings, as references'),
});

export const ConfigRoute = RouteCreate.omit(withoutIds).extend({ name: recordName });

export const ConfigSettings = z.strictObject({
  delivery_max_dispatches: SettingsFields.delivery_max_dispatches.optional(),
  identification_hide_version: SettingsFields.identification_hide_version.optional(),
});

export const configFormatVersion = 1;

export const ConfigFile = z
  .strictObject({
    pier_config: z.literal(configFormatVersion).describe('The version of this format'),
    settings: ConfigSettings.optional(),
    certificates: z.array(ConfigCertificate).default([]),
    organizations: z.array(ConfigOrganization).default([]),
    partners: z.array(ConfigPartner).default([]),
    instances: z.array(ConfigInstance).default([]),
    routes: z.array(ConfigRoute).default([]),
  })
  .describe("A pier install's configuration (docs/configuration-files.md)");
export type ConfigFile = z.output<typeof ConfigFile>;
export type ConfigPartner = z.output<typeof ConfigPartner>;
export type ConfigOrganization = z.output<typeof ConfigOrganization>;
export type ConfigInstance = z.output<typeof ConfigInstance>;
export type ConfigCertificate = z.output<typeof ConfigCertificate>;

/** The published JSON Schema of the file, made from the zod definitions above. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigFile, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
