/** Local AS2 profiles (docs/api/as2-profiles.md): one per organization, addressed by the organization's id. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { diffChanges } from '../../audit/changes.js';
import { As2LocalProfileSchema, type As2LocalProfile } from '../../../storage/entities/as2-profile.js';
import { OrganizationSchema } from '../../../storage/entities/party.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { conflict, notFound, validationError } from '../../errors.js';
import { iso, type Page } from '../../schemas/common.js';
import {
  localProfileProblems,
  type LocalProfileCreate,
  type LocalProfileRecord,
  type LocalProfileUpdate,
  type LocalProfileValues,
} from '../../schemas/as2-profile.js';
import { loadForUpdate, throwProblems } from '../../validation.js';
import { auditProfile } from './profile-audit.js';
import { certificateProblems, readCertificateRefs, writeCertificateRefs } from './certificate-refs.js';

const auditedFields = [
  'as2id',
  'signing_certificate_id',
  'decryption_certificate_ids',
  'async_mdn_url',
] as const;

function profileJson(p: As2LocalProfile, refs: Record<string, number[]>): LocalProfileRecord {
  return {
    local_organization_id: p.organization_id,
    as2id: p.as2id,
    signing_certificate_id: refs.signing_certificate_id?.[0] ?? 0,
    decryption_certificate_ids: refs.decryption_certificate_ids ?? [],
    async_mdn_url: p.async_mdn_url,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

function valuesOf(p: As2LocalProfile, refs: Record<string, number[]>): LocalProfileValues {
  const { local_organization_id: _id, created_at: _c, updated_at: _u, ...values } = profileJson(p, refs);
  return values;
}

export async function listLocalProfiles(
  em: EntityManager,
  page: { limit: number; offset: number },
): Promise<Page<LocalProfileRecord>> {
  const [rows, total] = await em.findAndCount(
    As2LocalProfileSchema,
    {},
    { orderBy: { as2id: 'asc' }, ...page },
  );
  const refs = await readCertificateRefs(
    em,
    'local',
    rows.map((r) => r.organization_id),
  );
  return { items: rows.map((r) => profileJson(r, refs.get(r.organization_id) ?? {})), total, ...page };
}

async function load(em: EntityManager, organizationId: number) {
  const profile = await em.findOne(As2LocalProfileSchema, { organization_id: organizationId });
  if (!profile) throw notFound('AS2 profile');
  const refs = (await readCertificateRefs(em, 'local', [organizationId])).get(organizationId) ?? {};
  return { profile, refs };
}

export async function getLocalProfile(
  em: EntityManager,
  organizationId: number,
): Promise<LocalProfileRecord> {
  const { profile, refs } = await load(em, organizationId);
  return profileJson(profile, refs);
}

/**
 * Field rules, as2id uniqueness and the certificates; throws the first failure.
 * `decryptionDefaulted`: the decryption list is the signing certificate because the body left
 * it out, so a problem with that certificate is reported once, on signing_certificate_id.
 */
async function check(
  em: EntityManager,
  values: LocalProfileValues,
  organizationId: number,
  decryptionDefaulted = false,
  /** Problems found before (api/validation.ts fieldProblems): named in the same answer, first. */
  bodyProblems: Record<string, string> = {},
): Promise<void> {
  const problems: Record<string, string> = {
    ...localProfileProblems(values),
    ...(await certificateProblems(em, [
      { field: 'signing_certificate_id', ids: [values.signing_certificate_id], keyFor: 'signing' },
      {
        field: 'decryption_certificate_ids',
        ids: values.decryption_certificate_ids,
        keyFor: 'decryption',
        encryptionFor: 'decryption',
      },
    ])),
  };
  Object.assign(problems, bodyProblems);
  if (decryptionDefaulted && problems.signing_certificate_id) delete problems.decryption_certificate_ids;
  throwProblems(problems);
  const taken = await em.findOne(As2LocalProfileSchema, {
    as2id: values.as2id,
    organization_id: { $ne: organizationId },
  });
  if (taken) {
    const owner = await em.findOne(OrganizationSchema, { id: taken.organization_id });
    const message = `AS2 ID ${values.as2id} is used by the profile of organization ${owner?.name ?? taken.organization_id}`;
    throw conflict(message, { as2id: message });
  }
}

function refsOf(values: LocalProfileValues): Record<string, number[]> {
  return {
    signing_certificate_id: [values.signing_certificate_id],
    decryption_certificate_ids: values.decryption_certificate_ids,
  };
}

export async function createLocalProfile(
  ctx: ApiContext,
  caller: Caller,
  sent: Partial<z.output<typeof LocalProfileCreate>>,
  /** The properties the body got wrong (api/validation.ts fieldProblems). */
  bodyProblems: Record<string, string> = {},
): Promise<LocalProfileRecord> {
  if (Object.keys(bodyProblems).length > 0) return refuseLocalProfile(ctx, sent, bodyProblems);
  const body = sent as z.output<typeof LocalProfileCreate>;
  const organizationId = body.local_organization_id;
  const values: LocalProfileValues = {
    as2id: body.as2id,
    signing_certificate_id: body.signing_certificate_id,
    decryption_certificate_ids: body.decryption_certificate_ids ?? [body.signing_certificate_id],
    async_mdn_url: body.async_mdn_url,
  };
  return inTransaction(ctx, async (em) => {
    const organization = await em.findOne(OrganizationSchema, { id: organizationId });
    if (!organization)
      throw validationError({ local_organization_id: `Organization ${organizationId} does not exist` });
    if (await em.findOne(As2LocalProfileSchema, { organization_id: organizationId })) {
      const message = `Organization ${organization.name} already has an AS2 profile`;
      throw conflict(message, { local_organization_id: message });
    }
    await check(em, values, organizationId, body.decryption_certificate_ids === undefined);
    const profile = em.create(As2LocalProfileSchema, {
      organization_id: organizationId,
      as2id: values.as2id,
      async_mdn_url: values.async_mdn_url,
    });
    await em.flush();
    await writeCertificateRefs(em, { kind: 'local', id: organizationId }, refsOf(values));
    const changes = diffChanges(undefined, { ...values }, auditedFields);
    await auditProfile(ctx, em, caller, 'create', 'local', organizationId, changes);
    return profileJson(profile, refsOf(values));
  });
}

export async function updateLocalProfile(
  ctx: ApiContext,
  caller: Caller,
  organizationId: number,
  body: Partial<z.output<typeof LocalProfileUpdate>>,
  bodyProblems: Record<string, string> = {},
): Promise<LocalProfileRecord> {
  const problems = { ...bodyProblems };
  if (body.local_organization_id !== undefined && body.local_organization_id !== organizationId) {
    problems.local_organization_id ??= `Names organization ${body.local_organization_id}, but the path names ${organizationId}`;
  }
  return inTransaction(ctx, async (em) => {
    const { profile, refs } = await loadForUpdate(problems, () => load(em, organizationId));
    const before = valuesOf(profile, refs);
    const values: LocalProfileValues = {
      as2id: body.as2id ?? before.as2id,
      signing_certificate_id: body.signing_certificate_id ?? before.signing_certificate_id,
      decryption_certificate_ids: body.decryption_certificate_ids ?? before.decryption_certificate_ids,
      async_mdn_url: body.async_mdn_url ?? before.async_mdn_url,
    };
    await check(em, values, organizationId, false, problems);
    const changes = diffChanges({ ...before }, { ...values }, auditedFields);
    if (changes.length === 0) return profileJson(profile, refs);
    em.assign(profile, { as2id: values.as2id, async_mdn_url: values.async_mdn_url, updated_at: ctx.now() });
    await em.flush();
    await writeCertificateRefs(em, { kind: 'local', id: organizationId }, refsOf(values));
    await auditProfile(ctx, em, caller, 'update', 'local', organizationId, changes);
    return profileJson(profile, refsOf(values));
  });
}

/**
 * A create body with refused properties: the rules that can still be judged run on the rest
 * (the organization, the certificates sent, the address), and one 400 names everything.
 */
async function refuseLocalProfile(
  ctx: ApiContext,
  sent: Partial<z.output<typeof LocalProfileCreate>>,
  bodyProblems: Record<string, string>,
): Promise<never> {
  return inTransaction(ctx, async (em) => {
    const problems: Record<string, string> = { ...bodyProblems };
    const organizationId = sent.local_organization_id;
    if (organizationId !== undefined && !(await em.findOne(OrganizationSchema, { id: organizationId })))
      problems.local_organization_id ??= `Organization ${organizationId} does not exist`;
    const decryption =
      sent.decryption_certificate_ids ??
      (sent.signing_certificate_id !== undefined ? [sent.signing_certificate_id] : []);
    const found = {
      ...localProfileProblems({
        as2id: sent.as2id ?? '',
        signing_certificate_id: sent.signing_certificate_id ?? 0,
        decryption_certificate_ids: decryption,
        async_mdn_url: sent.async_mdn_url ?? '',
      }),
      ...(await certificateProblems(em, [
        ...(sent.signing_certificate_id !== undefined
          ? [{ field: 'signing_certificate_id', ids: [sent.signing_certificate_id], keyFor: 'signing' }]
          : []),
        {
          field: 'decryption_certificate_ids',
          ids: decryption,
          keyFor: 'decryption',
          encryptionFor: 'decryption',
        },
      ])),
    };
    for (const [field, problem] of Object.entries(found)) problems[field] ??= problem;
    if (sent.decryption_certificate_ids === undefined && problems.signing_certificate_id)
      delete problems.decryption_certificate_ids;
    throwProblems(problems);
    throw new Error('refuseLocalProfile called without problems');
  });
}

export async function deleteLocalProfile(
  ctx: ApiContext,
  caller: Caller,
  organizationId: number,
): Promise<void> {
  await inTransaction(ctx, async (em) => {
    const { profile, refs } = await load(em, organizationId);
    const before = valuesOf(profile, refs);
    em.remove(profile);
    await em.flush();
    const changes = diffChanges({ ...before }, undefined, auditedFields);
    await auditProfile(ctx, em, caller, 'delete', 'local', organizationId, changes);
  });
}
