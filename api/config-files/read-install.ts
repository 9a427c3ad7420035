/**
 * The install's configuration as a configuration file (export), and beside it a digest of each
 * stored secret by its place in the file, so a plan can tell a changed secret from an
 * unchanged one without either value leaving this module.
 */
import { envelopeSettingsOf } from '../schemas/edi-envelope.js';
import { createHash, X509Certificate } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { pluginTypeDefinitions, type PluginType } from '../../actors/index.js';
import { openSecrets, settingsOf } from '../../runtime/index.js';
import { As2RemoteProfileSchema } from '../../storage/entities/as2-profile.js';
import { CertificateSchema } from '../../storage/entities/certificate.js';
import { OrganizationSchema, PartnerSchema } from '../../storage/entities/party.js';
import { PluginConfigSchema } from '../../storage/entities/plugin-config.js';
import { RouteSchema } from '../../storage/entities/route.js';
import type { ApiContext } from '../context.js';
import { listLocalProfiles } from '../resources/as2-profiles/local-service.js';
import { listRemoteProfiles } from '../resources/as2-profiles/remote-service.js';
import { routeFields } from '../resources/message-routes/service.js';
import { loadSettings } from '../resources/settings/service.js';
import {
  configFormatVersion,
  type ConfigCertificate,
  type ConfigFile,
  type ConfigInstance,
  type ConfigOrganization,
  type ConfigPartner,
} from '../schemas/config-file.js';
import { certificateNames, envReference } from './names.js';

export interface ExportOptions {
  /** Only these partners, the certificates they name and the routes between them and anyone. */
  partners?: string[] | undefined;
  /** Private keys sealed with the install's secret key instead of `stored`. */
  sealKeys?: boolean | undefined;
}

export interface InstallState {
  file: ConfigFile;
  /** sha256 of each stored secret, by its path in the file (`partners.acme.as2.http_basic_password`). */
  secretDigests: Map<string, string>;
}

const everything = { limit: 1_000_000, offset: 0 };
const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export async function readInstall(
  ctx: ApiContext,
  em: EntityManager,
  options: ExportOptions = {},
): Promise<InstallState> {
  const secretDigests = new Map<string, string>();
  const only = options.partners ? new Set(options.partners) : undefined;

  const certificates = await em.find(
    CertificateSchema,
    {},
    { orderBy: { id: 'asc' }, populate: ['der', 'private_key'] },
  );
  const names = certificateNames(certificates);
  const used = new Set<number>();
  const nameOf = (id: number) => {
    used.add(id);
    return names.get(id)!;
  };

  const organizations = only ? [] : await em.find(OrganizationSchema, {}, { orderBy: { name: 'asc' } });
  const localProfiles = new Map(
    (await listLocalProfiles(em, everything)).items.map((p) => [p.local_organization_id, p]),
  );
  const organizationsOut: ConfigOrganization[] = organizations.map((o) => {
    const p = localProfiles.get(o.id);
    return {
      name: o.name,
      display_name: o.display_name,
      interchange_ids: o.interchange_ids.map((i) => ({ qualifier: i.qualifier, id: i.id })),
      ...(p
        ? {
            as2: {
              as2id: p.as2id,
              signing_certificate: nameOf(p.signing_certificate_id),
              decryption_certificates: p.decryption_certificate_ids.map(nameOf),
              async_mdn_url: p.async_mdn_url,
            },
          }
        : {}),
    };
  });

  const partners = (await em.find(PartnerSchema, {}, { orderBy: { name: 'asc' } })).filter(
    (p) => !only || only.has(p.name),
  );
  const remoteProfiles = new Map(
    (await listRemoteProfiles(em, everything)).items.map((p) => [p.business_partner_id, p]),
  );
  const remoteRows = new Map((await em.find(As2RemoteProfileSchema, {})).map((r) => [r.partner_id, r]));
  const partnersOut: ConfigPartner[] = partners.map((partner) => {
    const p = remoteProfiles.get(partner.id);
    const row = remoteRows.get(partner.id);
    let as2: ConfigPartner['as2'];
    if (p && row) {
      const {
        business_partner_id: _id,
        partner_certificate_id,
        signature_certificate_ids,
        tls_trusted_certificate_ids,
        tls_client_certificate_id,
        http_basic_password_set,
        http_headers_set,
        created_at: _c,
        updated_at: _u,
        ...plain
      } = p;
      const at = `partners.${partner.name}.as2`;
      if (row.http_basic_password) {
        secretDigests.set(`${at}.http_basic_password`, digest(ctx.secrets.openText(row.http_basic_password)));
      }
      if (row.http_headers) {
        const headers: unknown = JSON.parse(ctx.secrets.openText(row.http_headers));
        secretDigests.set(`${at}.http_headers`, digest(JSON.stringify(headers)));
      }
      as2 = {
        ...plain,
        partner_certificate: partner_certificate_id === null ? null : nameOf(partner_certificate_id),
        signature_certificates: signature_certificate_ids.map(nameOf),
        tls_trusted_certificates: tls_trusted_certificate_ids.map(nameOf),
        tls_client_certificate: tls_client_certificate_id === null ? null : nameOf(tls_client_certificate_id),
        ...(http_basic_password_set
          ? { http_basic_password: envReference('partner', partner.name, 'http_basic_password') }
          : {}),
        ...(http_headers_set ? { http_headers: envReference('partner', partner.name, 'http_headers') } : {}),
      };
    }
    return {
      name: partner.name,
      display_name: partner.display_name,
      interchange_ids: partner.interchange_ids.map((i) => ({ qualifier: i.qualifier, id: i.id })),
      x12_acknowledgement: partner.x12_acknowledgement as ConfigPartner['x12_acknowledgement'],
      edifact_acknowledgement: partner.edifact_acknowledgement as ConfigPartner['edifact_acknowledgement'],
      acknowledgement_due_hours: partner.acknowledgement_due_hours,
      speaks_for: [...partner.speaks_for].sort(),
      edi_envelope: envelopeSettingsOf(partner.edi_envelope),
      ...(as2 ? { as2 } : {}),
    };
  });

  const instancesOut: ConfigInstance[] = [];
  if (!only) {
    for (const row of await em.find(PluginConfigSchema, {}, { orderBy: { name: 'asc' } })) {
      const type = row.type as PluginType;
      const def = pluginTypeDefinitions[type];
      if (!def) continue;
      const settings = settingsOf(def, row);
      for (const field of Object.keys(def.certificateFields ?? {})) {
        const id = settings[field];
        if (typeof id === 'number') settings[field] = nameOf(id);
      }
      const opened = openSecrets(ctx.secrets, row);
      const secrets: Record<string, string> = {};
      for (const field of Object.keys(def.secretFields).sort()) {
        if (!(field in opened)) continue;
        secrets[field] = envReference('instance', row.name, field);
        secretDigests.set(`instances.${row.name}.secrets.${field}`, digest(JSON.stringify(opened[field])));
      }
      instancesOut.push({ type, name: row.name, enabled: row.enabled, settings, secrets });
    }
  }

  const routes = (await em.find(RouteSchema, {}, { orderBy: { name: 'asc' } })).filter(
    (r) => !only || only.has(r.from_party) || only.has(r.to_party),
  );
  const routesOut = routes.map(routeFields);

  const certificatesOut: ConfigCertificate[] = certificates
    .filter((c) => !only || used.has(c.id))
    .map((c) => ({
      name: names.get(c.id)!,
      ...(c.description !== names.get(c.id) ? { description: c.description } : {}),
      pem: new X509Certificate(c.der).toString(),
      ...(c.private_key
        ? { private_key: options.sealKeys ? { sealed: c.private_key } : ('stored' as const) }
        : {}),
    }))
    .sort(byName);

  const file: ConfigFile = {
    pier_config: configFormatVersion,
    ...(only
      ? {}
      : {
          settings: await (async () => {
            const s = await loadSettings(em);
            return {
              delivery_max_dispatches: s.delivery_max_dispatches,
              identification_hide_version: s.identification_hide_version,
            };
          })(),
        }),
    certificates: certificatesOut,
    organizations: organizationsOut,
    partners: partnersOut,
    instances: instancesOut,
    routes: routesOut,
  };
  return { file, secretDigests };
}
