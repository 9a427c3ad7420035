/**
 * Remote AS2 profiles (docs/api/as2-profiles.md): one per partner, addressed by the partner's id. The basic
 * auth password and the extra headers are write-only and sealed at rest (docs/api/conventions.md#write-only-values).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import {
  defaultInteropFields,
  type InteropField,
  interopFieldNames,
  type InteropFields,
  pickInteropFields,
  presetFields,
  type SecretBox,
} from '../../../runtime/index.js';
import { diffChanges } from '../../audit/changes.js';
import { As2RemoteProfileSchema, type As2RemoteProfile } from '../../../storage/entities/as2-profile.js';
import { PartnerSchema } from '../../../storage/entities/party.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { conflict, notFound, validationError } from '../../errors.js';
import { loadForUpdate, throwProblems } from '../../validation.js';
import { iso, type Page } from '../../schemas/common.js';
import {
  remoteProfileProblems,
  type HttpHeader,
  type RemoteProfileCreate,
  type RemoteProfileRecord,
  type RemoteProfileUpdate,
  type RemoteProfileValues,
} from '../../schemas/as2-profile.js';
import { auditProfile } from './profile-audit.js';
import { certificateProblems, readCertificateRefs, writeCertificateRefs } from './certificate-refs.js';

const secretFields = ['http_basic_password', 'http_headers'] as const;
const auditedFields = [
  'as2id',
  'endpoint',
  'partner_certificate_id',
  'signature_certificate_ids',
  'signing_algorithm',
  'encryption_algorithm',
  'compression',
  'mdn_mode',
  'mdn_signed',
  'receipt_timeout_hours',
  'http_basic_user',
  'tls_verify',
  'tls_trusted_certificate_ids',
  'tls_client_certificate_id',
  'interop_preset',
  ...interopFieldNames,
  'as2bis',
  'inbound_signature',
  'inbound_encryption',
  'inbound_algorithms',
  'max_message_mib',
  ...secretFields,
] as const;

type Refs = Record<string, number[]>;

function profileJson(p: As2RemoteProfile, refs: Refs): RemoteProfileRecord {
  return {
    business_partner_id: p.partner_id,
    as2id: p.as2id,
    endpoint: p.endpoint,
    partner_certificate_id: refs.partner_certificate_id?.[0] ?? null,
    signature_certificate_ids: refs.signature_certificate_ids ?? [],
    signing_algorithm: p.signing_algorithm as RemoteProfileRecord['signing_algorithm'],
    encryption_algorithm: p.encryption_algorithm as RemoteProfileRecord['encryption_algorithm'],
    compression: p.compression,
    mdn_mode: p.mdn_mode as RemoteProfileRecord['mdn_mode'],
    mdn_signed: p.mdn_signed,
    receipt_timeout_hours: p.receipt_timeout_hours,
    http_basic_user: p.http_basic_user,
    http_basic_password_set: p.http_basic_password !== null && p.http_basic_password !== undefined,
    http_headers_set: p.http_headers !== null && p.http_headers !== undefined,
    tls_verify: p.tls_verify,
    tls_trusted_certificate_ids: refs.tls_trusted_certificate_ids ?? [],
    tls_client_certificate_id: refs.tls_client_certificate_id?.[0] ?? null,
    interop_preset: (p.interop_preset ?? null) as RemoteProfileRecord['interop_preset'],
    ...pickInteropFields(p),
    as2bis: p.as2bis,
    inbound_signature: p.inbound_signature as RemoteProfileRecord['inbound_signature'],
    inbound_encryption: p.inbound_encryption as RemoteProfileRecord['inbound_encryption'],
    inbound_algorithms: p.inbound_algorithms as RemoteProfileRecord['inbound_algorithms'],
    max_message_mib: p.max_message_mib ?? null,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

/**
 * The interop options after a request: a preset named in it fills the options it sets, then
 * the options the request names itself win. Switching to another preset starts from the
 * defaults, so one request replaces the old preset's options (docs/interop.md); otherwise
 * options neither touches keep their values.
 */
function withInterop(
  current: InteropFields,
  body: Partial<InteropFields> & { interop_preset?: RemoteProfileValues['interop_preset'] },
  currentPreset: RemoteProfileValues['interop_preset'] = null,
): InteropFields {
  const switching = Boolean(body.interop_preset) && body.interop_preset !== currentPreset;
  const next: InteropFields = {
    ...(switching ? defaultInteropFields : current),
    ...(body.interop_preset ? presetFields(body.interop_preset) : {}),
  };
  for (const field of interopFieldNames) {
    if (body[field] !== undefined) (next as Record<InteropField, unknown>)[field] = body[field];
  }
  return next;
}

/** The stored values with the write-only ones opened, for rules and the audit diff. */
function valuesOf(p: As2RemoteProfile, refs: Refs, secrets: SecretBox): RemoteProfileValues {
  const {
    business_partner_id: _id,
    http_basic_password_set: _p,
    http_headers_set: _h,
    created_at: _c,
    updated_at: _u,
    ...shown
  } = profileJson(p, refs);
  return {
    ...shown,
    http_basic_password: p.http_basic_password ? secrets.openText(p.http_basic_password) : '',
    http_headers: p.http_headers ? (JSON.parse(secrets.openText(p.http_headers)) as HttpHeader[]) : [],
  };
}

/** For the audit diff: an absent secret is undefined, so only a real change is recorded (without its value). */
function auditValues(v: RemoteProfileValues) {
  return {
    ...v,
    http_basic_password: v.http_basic_password === '' ? undefined : v.http_basic_password,
    http_headers: v.http_headers.length === 0 ? undefined : v.http_headers,
  };
}

function refsOf(v: RemoteProfileValues): Refs {
  return {
    partner_certificate_id: v.partner_certificate_id === null ? [] : [v.partner_certificate_id],
    signature_certificate_ids: v.signature_certificate_ids,
    tls_trusted_certificate_ids: v.tls_trusted_certificate_ids,
    tls_client_certificate_id: v.tls_client_certificate_id === null ? [] : [v.tls_client_certificate_id],
  };
}

function columnsOf(v: RemoteProfileValues, secrets: SecretBox) {
  return {
    as2id: v.as2id,
    endpoint: v.endpoint,
    signing_algorithm: v.signing_algorithm,
    encryption_algorithm: v.encryption_algorithm,
    compression: v.compression,
    mdn_mode: v.mdn_mode,
    mdn_signed: v.mdn_signed,
    receipt_timeout_hours: v.receipt_timeout_hours,
    http_basic_user: v.http_basic_user,
    http_basic_password: v.http_basic_password === '' ? null : secrets.seal(v.http_basic_password),
    http_headers: v.http_headers.length === 0 ? null : secrets.seal(JSON.stringify(v.http_headers)),
    tls_verify: v.tls_verify,
    interop_preset: v.interop_preset,
    ...pickInteropFields(v),
    as2bis: v.as2bis,
    inbound_signature: v.inbound_signature,
    inbound_encryption: v.inbound_encryption,
    inbound_algorithms: v.inbound_algorithms,
    max_message_mib: v.max_message_mib,
  };
}

export async function listRemoteProfiles(
  em: EntityManager,
  page: { limit: number; offset: number },
): Promise<Page<RemoteProfileRecord>> {
  const [rows, total] = await em.findAndCount(
    As2RemoteProfileSchema,
    {},
    { orderBy: { as2id: 'asc' }, ...page },
  );
  const refs = await readCertificateRefs(
    em,
    'remote',
    rows.map((r) => r.partner_id),
  );
  return { items: rows.map((r) => profileJson(r, refs.get(r.partner_id) ?? {})), total, ...page };
}

async function load(em: EntityManager, partnerId: number) {
  const profile = await em.findOne(As2RemoteProfileSchema, { partner_id: partnerId });
  if (!profile) throw notFound('AS2 profile');
  const refs = (await readCertificateRefs(em, 'remote', [partnerId])).get(partnerId) ?? {};
  return { profile, refs };
}

export async function getRemoteProfile(em: EntityManager, partnerId: number): Promise<RemoteProfileRecord> {
  const { profile, refs } = await load(em, partnerId);
  return profileJson(profile, refs);
}

/** The rules over the whole profile and its certificates; one message per property. */
async function profileProblems(em: EntityManager, v: RemoteProfileValues): Promise<Record<string, string>> {
  return {
    ...remoteProfileProblems(v),
    ...(await certificateProblems(em, [
      {
        field: 'partner_certificate_id',
        ids: refsOf(v).partner_certificate_id!,
        encryptionFor: 'encryption',
      },
      ...(v.key_agreement === 'ecmqv'
        ? [{ field: 'key_agreement', ids: refsOf(v).partner_certificate_id!, ecmqv: true }]
        : []),
      { field: 'signature_certificate_ids', ids: v.signature_certificate_ids },
      { field: 'tls_trusted_certificate_ids', ids: v.tls_trusted_certificate_ids },
      {
        field: 'tls_client_certificate_id',
        ids: refsOf(v).tls_client_certificate_id!,
        keyFor: 'TLS client authentication',
      },
    ])),
  };
}

async function check(
  em: EntityManager,
  v: RemoteProfileValues,
  partnerId: number,
  /** Problems found before (api/validation.ts fieldProblems): named in the same answer, first. */
  bodyProblems: Record<string, string> = {},
): Promise<void> {
  throwProblems(bodyProblems, await profileProblems(em, v));
  const taken = await em.findOne(As2RemoteProfileSchema, { as2id: v.as2id, partner_id: { $ne: partnerId } });
  if (taken) {
    const owner = await em.findOne(PartnerSchema, { id: taken.partner_id });
    const message = `AS2 ID ${v.as2id} is used by the profile of partner ${owner?.name ?? taken.partner_id}`;
    throw conflict(message, { as2id: message });
  }
}

type CreateBody = z.output<typeof RemoteProfileCreate>;

/** The profile a create body makes, defaults applied. */
function createdValues(body: CreateBody): RemoteProfileValues {
  return {
    as2id: body.as2id,
    endpoint: body.endpoint,
    partner_certificate_id: body.partner_certificate_id,
    // A partner usually signs with the certificate it receives with.
    signature_certificate_ids:
      body.signature_certificate_ids ??
      (body.partner_certificate_id === null ? [] : [body.partner_certificate_id]),
    signing_algorithm: body.signing_algorithm,
    encryption_algorithm: body.encryption_algorithm,
    compression: body.compression,
    mdn_mode: body.mdn_mode,
    mdn_signed: body.mdn_signed,
    receipt_timeout_hours: body.receipt_timeout_hours,
    http_basic_user: body.http_basic_user,
    http_basic_password: body.http_basic_password ?? '',
    http_headers: body.http_headers ?? [],
    tls_verify: body.tls_verify,
    tls_trusted_certificate_ids: body.tls_trusted_certificate_ids,
    tls_client_certificate_id: body.tls_client_certificate_id,
    interop_preset: body.interop_preset,
    ...withInterop(defaultInteropFields, body),
    as2bis: body.as2bis,
    inbound_signature: body.inbound_signature,
    inbound_encryption: body.inbound_encryption,
    // Under as2bis the partner is expected to send modern algorithms too.
    inbound_algorithms: body.inbound_algorithms ?? (body.as2bis ? 'modern' : 'any'),
    max_message_mib: body.max_message_mib,
  };
}

/**
 * A create body with refused properties: the rules that can still be judged run on the rest
 * (the partner, the certificates sent, the rules between properties, with the refused required
 * ones left empty), and one 400 names everything.
 */
async function refuseRemoteProfile(
  ctx: ApiContext,
  sent: Partial<CreateBody>,
  bodyProblems: Record<string, string>,
): Promise<never> {
  return inTransaction(ctx, async (em) => {
    const problems: Record<string, string> = {};
    const partnerId = sent.business_partner_id;
    if (partnerId !== undefined && !(await em.findOne(PartnerSchema, { id: partnerId })))
      problems.business_partner_id = `Partner ${partnerId} does not exist`;
    // A list refused or left out is judged as empty, as the schema's default would give it.
    const body = {
      ...sent,
      as2id: sent.as2id ?? '',
      endpoint: sent.endpoint ?? '',
      tls_trusted_certificate_ids: Array.isArray(sent.tls_trusted_certificate_ids)
        ? sent.tls_trusted_certificate_ids
        : [],
    };
    throwProblems(bodyProblems, problems, await profileProblems(em, createdValues(body as CreateBody)));
    throw new Error('refuseRemoteProfile called without problems');
  });
}

export async function createRemoteProfile(
  ctx: ApiContext,
  caller: Caller,
  sent: Partial<CreateBody>,
  /** The properties the body got wrong (api/validation.ts fieldProblems). */
  bodyProblems: Record<string, string> = {},
): Promise<RemoteProfileRecord> {
  if (Object.keys(bodyProblems).length > 0) return refuseRemoteProfile(ctx, sent, bodyProblems);
  const body = sent as CreateBody;
  const partnerId = body.business_partner_id;
  const values = createdValues(body);
  return inTransaction(ctx, async (em) => {
    const partner = await em.findOne(PartnerSchema, { id: partnerId });
    if (!partner) throw validationError({ business_partner_id: `Partner ${partnerId} does not exist` });
    if (await em.findOne(As2RemoteProfileSchema, { partner_id: partnerId })) {
      const message = `Partner ${partner.name} already has an AS2 profile`;
      throw conflict(message, { business_partner_id: message });
    }
    await check(em, values, partnerId);
    const profile = em.create(As2RemoteProfileSchema, {
      partner_id: partnerId,
      ...columnsOf(values, ctx.secrets),
    });
    await em.flush();
    await writeCertificateRefs(em, { kind: 'remote', id: partnerId }, refsOf(values));
    const changes = diffChanges(undefined, auditValues(values), auditedFields, secretFields);
    await auditProfile(ctx, em, caller, 'create', 'remote', partnerId, changes);
    return profileJson(profile, refsOf(values));
  });
}

/**
 * docs/api/conventions.md#write-only-values: secrets belong to the URL they were entered for. The failure is on
 * `endpoint`, the property that changed, as for a plugin's `url`: the secrets were left out,
 * so there is nothing wrong with them to point at.
 */
function endpointSecretProblems(
  before: RemoteProfileValues,
  body: z.output<typeof RemoteProfileUpdate>,
): Record<string, string> {
  if (body.endpoint === undefined || body.endpoint === before.endpoint) return {};
  const unsent = [
    ...(before.http_basic_password !== '' && body.http_basic_password === undefined
      ? ['http_basic_password']
      : []),
    ...(before.http_headers.length > 0 && body.http_headers === undefined ? ['http_headers'] : []),
  ];
  if (unsent.length === 0) return {};
  return {
    endpoint: `Changing endpoint needs ${unsent.join(' and ')} sent again: stored secrets are not kept for a new endpoint (an empty text or list removes one)`,
  };
}

export async function updateRemoteProfile(
  ctx: ApiContext,
  caller: Caller,
  partnerId: number,
  body: Partial<z.output<typeof RemoteProfileUpdate>>,
  bodyProblems: Record<string, string> = {},
): Promise<RemoteProfileRecord> {
  const problems = { ...bodyProblems };
  if (body.business_partner_id !== undefined && body.business_partner_id !== partnerId) {
    problems.business_partner_id ??= `Names partner ${body.business_partner_id}, but the path names ${partnerId}`;
  }
  return inTransaction(ctx, async (em) => {
    const { profile, refs } = await loadForUpdate(problems, () => load(em, partnerId));
    const before = valuesOf(profile, refs, ctx.secrets);
    const secretProblems = endpointSecretProblems(before, body);
    if (Object.keys(problems).length > 0) {
      // Refused properties keep their stored values for the rules; everything goes in one answer.
      const { business_partner_id: _id, ...sent } = body;
      const merged: RemoteProfileValues = { ...before };
      for (const [key, value] of Object.entries(sent)) {
        if (value !== undefined && key in merged) (merged as unknown as Record<string, unknown>)[key] = value;
      }
      Object.assign(merged, withInterop(pickInteropFields(before), body, before.interop_preset));
      throwProblems(problems, secretProblems, await profileProblems(em, merged));
    }
    if (Object.keys(secretProblems).length > 0) throw validationError(secretProblems);
    const { business_partner_id: _id, ...changes } = body;
    const values: RemoteProfileValues = { ...before };
    for (const [key, value] of Object.entries(changes)) {
      if (value !== undefined && key in values) (values as unknown as Record<string, unknown>)[key] = value;
    }
    Object.assign(values, withInterop(pickInteropFields(before), body, before.interop_preset));
    await check(em, values, partnerId);
    const changed = diffChanges(auditValues(before), auditValues(values), auditedFields, secretFields);
    if (changed.length === 0) return profileJson(profile, refs);
    em.assign(profile, { ...columnsOf(values, ctx.secrets), updated_at: ctx.now() });
    await em.flush();
    await writeCertificateRefs(em, { kind: 'remote', id: partnerId }, refsOf(values));
    await auditProfile(ctx, em, caller, 'update', 'remote', partnerId, changed);
    return profileJson(profile, refsOf(values));
  });
}

export async function deleteRemoteProfile(ctx: ApiContext, caller: Caller, partnerId: number): Promise<void> {
  await inTransaction(ctx, async (em) => {
    const { profile, refs } = await load(em, partnerId);
    const before = valuesOf(profile, refs, ctx.secrets);
    em.remove(profile);
    await em.flush();
    const changes = diffChanges(auditValues(before), undefined, auditedFields, secretFields);
    await auditProfile(ctx, em, caller, 'delete', 'remote', partnerId, changes);
  });
}
