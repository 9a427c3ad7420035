/**
 * The file's organizations and partners, and their AS2 profiles, through the same services
 * as the API, so every rule of a record is checked in one place. Names are turned into the
 * ids the services take here and nowhere else.
 */
import type { z } from 'zod';
import { As2LocalProfileSchema, As2RemoteProfileSchema } from '../../storage/entities/as2-profile.js';
import { OrganizationSchema, PartnerSchema } from '../../storage/entities/party.js';
import {
  createLocalProfile,
  deleteLocalProfile,
  updateLocalProfile,
} from '../resources/as2-profiles/local-service.js';
import {
  createRemoteProfile,
  deleteRemoteProfile,
  updateRemoteProfile,
} from '../resources/as2-profiles/remote-service.js';
import {
  createParty,
  deleteParty,
  organizationKind,
  partnerKind,
  updateParty,
  type PartyKind,
} from '../resources/parties/service.js';
import type { HttpHeader, RemoteProfileCreate } from '../schemas/as2-profile.js';
import type { ConfigFile } from '../schemas/config-file.js';
import { attempt, certificateFieldName, type ApplyRun } from './apply-context.js';
import { resolveReference } from './names.js';

type Ids = Map<string, number>;

const idsText = (ids: { qualifier: string; id: string }[]) =>
  JSON.stringify(ids.map((i) => [i.qualifier, i.id]));

/** Certificate names to ids; an unknown name is a problem at its path, and the record is skipped. */
function certificateIds(
  run: ApplyRun,
  certificates: Ids,
  path: string,
  names: Record<string, string | string[] | null | undefined>,
): Record<string, number | number[] | null> | undefined {
  const out: Record<string, number | number[] | null> = {};
  let ok = true;
  const one = (field: string, name: string, at: string) => {
    const id = certificates.get(name);
    if (id === undefined) {
      run.problems[at] = `No certificate is named ${name} in the file or on this install`;
      ok = false;
    }
    return id ?? 0;
  };
  for (const [field, value] of Object.entries(names)) {
    if (value === undefined) continue;
    const apiField = field.endsWith('s') ? `${field.slice(0, -1)}_ids` : `${field}_id`;
    if (value === null) out[apiField] = null;
    else if (Array.isArray(value))
      out[apiField] = value.map((n, i) => one(field, n, `${path}.${field}[${i}]`));
    else out[apiField] = one(field, value, `${path}.${field}`);
  }
  return ok ? out : undefined;
}

async function applyParties(
  run: ApplyRun,
  kind: PartyKind,
  section: 'organizations' | 'partners',
  records: ConfigFile['organizations'] | ConfigFile['partners'],
): Promise<Ids> {
  // A partner row is an organization row plus its own settings: the kind's entity reads both.
  const entity = kind.entity;
  for (const [i, record] of records.entries()) {
    const { as2: _as2, ...fields } = record as ConfigFile['partners'][number];
    // speaks_for names other partners of the file: set once they all exist.
    const { speaks_for: _s, ...body } = fields;
    const existing = await run.em().findOne(entity, { name: record.name });
    const path = `${section}[${i}]`;
    if (existing) {
      // Stored ids come back with their keys in another order; the same ids are no change.
      const { interchange_ids, ...rest } = body;
      const same = idsText(interchange_ids) === idsText(existing.interchange_ids);
      await attempt(run, path, () => updateParty(run.ctx, run.caller, kind, existing.id, same ? rest : body));
    } else await attempt(run, path, () => createParty(run.ctx, run.caller, kind, body));
  }
  const ids = new Map<string, number>();
  for (const p of await run.em().find(entity, {})) ids.set(p.name, p.id);
  if (kind === partnerKind) {
    for (const [i, record] of (records as ConfigFile['partners']).entries()) {
      const id = ids.get(record.name);
      if (id === undefined) continue;
      await attempt(run, `${section}[${i}]`, () =>
        updateParty(run.ctx, run.caller, kind, id, { speaks_for: record.speaks_for }),
      );
    }
  }
  return ids;
}

async function applyLocalProfiles(run: ApplyRun, file: ConfigFile, orgs: Ids, certificates: Ids) {
  for (const [i, org] of file.organizations.entries()) {
    const id = orgs.get(org.name);
    const path = `organizations[${i}].as2`;
    if (id === undefined) continue;
    const existing = await run.em().findOne(As2LocalProfileSchema, { organization_id: id });
    if (!org.as2) {
      if (existing && run.prune) await attempt(run, path, () => deleteLocalProfile(run.ctx, run.caller, id));
      continue;
    }
    const { signing_certificate, decryption_certificates, ...plain } = org.as2;
    const refs = certificateIds(run, certificates, path, { signing_certificate, decryption_certificates });
    if (!refs) continue;
    const body = { ...plain, ...refs } as Record<string, unknown>;
    if (existing) {
      await attempt(run, path, () => updateLocalProfile(run.ctx, run.caller, id, body), certificateFieldName);
    } else {
      await attempt(
        run,
        path,
        () => createLocalProfile(run.ctx, run.caller, { ...body, local_organization_id: id }),
        certificateFieldName,
      );
    }
  }
}

type RemoteBody = Partial<z.output<typeof RemoteProfileCreate>>;

async function applyRemoteProfiles(run: ApplyRun, file: ConfigFile, partners: Ids, certificates: Ids) {
  for (const [i, partner] of file.partners.entries()) {
    const id = partners.get(partner.name);
    const path = `partners[${i}].as2`;
    if (id === undefined) continue;
    const existing = await run.em().findOne(As2RemoteProfileSchema, { partner_id: id });
    if (!partner.as2) {
      if (existing && run.prune) await attempt(run, path, () => deleteRemoteProfile(run.ctx, run.caller, id));
      continue;
    }
    const {
      partner_certificate,
      signature_certificates,
      tls_trusted_certificates,
      tls_client_certificate,
      http_basic_password,
      http_headers,
      ...plain
    } = partner.as2;
    const refs = certificateIds(run, certificates, path, {
      partner_certificate,
      signature_certificates,
      tls_trusted_certificates,
      tls_client_certificate,
    });
    const secrets: { http_basic_password?: string; http_headers?: HttpHeader[] } = {};
    if (http_basic_password !== undefined) {
      const value = resolveReference(
        http_basic_password,
        run.env,
        `${path}.http_basic_password`,
        run.problems,
      );
      if (value !== undefined) secrets.http_basic_password = value;
    }
    if (http_headers !== undefined) {
      const value = resolveReference(http_headers, run.env, `${path}.http_headers`, run.problems);
      try {
        if (value !== undefined) secrets.http_headers = JSON.parse(value) as HttpHeader[];
      } catch {
        run.problems[`${path}.http_headers`] =
          'The environment variable does not hold a JSON list of headers';
      }
    }
    if (!refs) continue;
    const body = { ...plain, ...refs, ...secrets } as RemoteBody;
    if (existing) {
      await attempt(
        run,
        path,
        () => updateRemoteProfile(run.ctx, run.caller, id, body),
        certificateFieldName,
      );
    } else {
      await attempt(
        run,
        path,
        () => createRemoteProfile(run.ctx, run.caller, { ...body, business_partner_id: id }),
        certificateFieldName,
      );
    }
  }
}

export async function applyPartiesAndProfiles(run: ApplyRun, file: ConfigFile, certificates: Ids) {
  const orgs = await applyParties(run, organizationKind, 'organizations', file.organizations);
  const partners = await applyParties(run, partnerKind, 'partners', file.partners);
  await applyLocalProfiles(run, file, orgs, certificates);
  await applyRemoteProfiles(run, file, partners, certificates);
}

/** With --prune: parties the file does not name go, their AS2 profiles first. */
export async function pruneParties(run: ApplyRun, file: ConfigFile) {
  const named = {
    partners: new Set(file.partners.map((p) => p.name)),
    organizations: new Set(file.organizations.map((o) => o.name)),
  };
  for (const p of await run.em().find(PartnerSchema, {}, { orderBy: { name: 'asc' } })) {
    if (named.partners.has(p.name)) continue;
    const path = `partners (${p.name})`;
    if (await run.em().findOne(As2RemoteProfileSchema, { partner_id: p.id }))
      await attempt(run, path, () => deleteRemoteProfile(run.ctx, run.caller, p.id));
    await attempt(run, path, () => deleteParty(run.ctx, run.caller, partnerKind, p.id));
  }
  for (const o of await run.em().find(OrganizationSchema, {}, { orderBy: { name: 'asc' } })) {
    if (named.organizations.has(o.name)) continue;
    const path = `organizations (${o.name})`;
    if (await run.em().findOne(As2LocalProfileSchema, { organization_id: o.id }))
      await attempt(run, path, () => deleteLocalProfile(run.ctx, run.caller, o.id));
    await attempt(run, path, () => deleteParty(run.ctx, run.caller, organizationKind, o.id));
  }
}
