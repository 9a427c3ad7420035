/**
 * Certificate exchanges as the API and the web UI see them: lists and records from the
 * repository, the moves (send a request, answer one, set a partner's policy) by the runtime's
 * CemService, whose refusals the error table turns into 400 and 404 answers (api/runtime-errors.ts).
 */
import {
  cemExchange,
  cemExchangesPage,
  cemPolicyOf,
  type CemExchangeRow,
  type CemFilters,
} from '../../../storage/repositories/cem-exchanges.js';
import type { CemPolicy } from '../../../runtime/index.js';
import type { AuditedKind, AuditedRecord } from '../../audit/recorder.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, inTransaction, runtimeOf, type ApiContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { iso, type Page } from '../../schemas/common.js';
import type { CemExchangeRecord } from '../../schemas/cem.js';
import type { z } from 'zod';
import type { CemAnswer, CemExchangeCreate } from '../../schemas/cem.js';

function record(row: CemExchangeRow): CemExchangeRecord {
  return {
    ...row,
    respond_by: iso(row.respond_by),
    answered_at: iso(row.answered_at),
    switched_at: iso(row.switched_at),
    overdue_alerted_at: iso(row.overdue_alerted_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    certificates: row.certificates.map((c) => ({
      ...c,
      usages: c.usages as CemExchangeRecord['certificates'][number]['usages'],
    })),
  };
}

/**
 * What the audit log records of an exchange and a policy. Written right after the runtime's
 * move commits (its statements run on the runtime's own connections), in a transaction of its own.
 */
const auditedExchange = {
  kind: 'cem-exchange',
  fields: ['direction', 'partner', 'organization', 'request_id', 'respond_by', 'certificates'],
} as const;
const auditedPolicy = { kind: 'cem-policy', fields: ['policy'] } as const;

function auditValues(e: CemExchangeRecord) {
  return {
    direction: e.direction,
    partner: e.partner,
    organization: e.organization,
    request_id: e.request_id,
    respond_by: e.respond_by,
    certificates: e.certificates.map((c) => `${c.name} (${c.usages.join(', ')}): ${c.answer}`).join('; '),
  };
}

/** Audits a change the runtime has already committed on its own connections. */
async function auditUpdate(
  ctx: ApiContext,
  caller: Caller,
  spec: AuditedKind,
  record: AuditedRecord,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Promise<void> {
  await inTransaction(ctx, (em) => ctx.audit.updated(em, caller.actor, spec, record, before, after));
}

export async function listCemExchanges(
  ctx: ApiContext,
  filters: CemFilters,
): Promise<Page<CemExchangeRecord>> {
  const { rows, total } = await cemExchangesPage(freshEm(ctx), ctx.now(), filters);
  return { items: rows.map(record), total, limit: filters.limit, offset: filters.offset };
}

export async function getCemExchange(ctx: ApiContext, id: number): Promise<CemExchangeRecord> {
  const row = await cemExchange(freshEm(ctx), ctx.now(), id);
  if (!row) throw notFound('Certificate exchange');
  return record(row);
}

export async function sendCemRequest(
  ctx: ApiContext,
  caller: Caller,
  body: z.infer<typeof CemExchangeCreate>,
): Promise<CemExchangeRecord> {
  const id = await runtimeOf(ctx).cem.sendRequest(
    { ...body, respond_by: new Date(body.respond_by) },
    caller.actor,
  );
  const made = await getCemExchange(ctx, id);
  await inTransaction(ctx, (em) =>
    ctx.audit.created(em, caller.actor, auditedExchange, { id, name: made.request_id }, auditValues(made)),
  );
  return made;
}

export async function answerCemRequest(
  ctx: ApiContext,
  caller: Caller,
  id: number,
  body: z.infer<typeof CemAnswer>,
): Promise<CemExchangeRecord> {
  const before = await getCemExchange(ctx, id);
  await runtimeOf(ctx).cem.answer(id, body, caller.actor);
  const after = await getCemExchange(ctx, id);
  const exchange = { id, name: after.request_id };
  await auditUpdate(ctx, caller, auditedExchange, exchange, auditValues(before), auditValues(after));
  return after;
}

export async function getCemPolicy(
  ctx: ApiContext,
  partnerId: number,
): Promise<{ partner_id: number; policy: CemPolicy }> {
  const policy = await cemPolicyOf(freshEm(ctx), partnerId);
  if (policy === undefined) throw notFound('Partner');
  return { partner_id: partnerId, policy: policy as CemPolicy };
}

export async function setCemPolicy(
  ctx: ApiContext,
  caller: Caller,
  partnerId: number,
  policy: CemPolicy,
): Promise<{ partner_id: number; policy: CemPolicy }> {
  const before = await getCemPolicy(ctx, partnerId);
  await runtimeOf(ctx).cem.setPolicy(partnerId, policy);
  const after = await getCemPolicy(ctx, partnerId);
  await auditUpdate(
    ctx,
    caller,
    auditedPolicy,
    { id: partnerId, name: `partner ${partnerId}` },
    before,
    after,
  );
  return after;
}
