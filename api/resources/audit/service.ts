/** Reading and verifying the audit log (docs/api/audit.md). The log itself is written by api/audit/. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { ChainVerifier, type StoredEvent, type VerifyResult } from '../../audit/chain.js';
import {
  auditEventsAfter,
  auditEventsPage,
  hasHashedAuditEvents,
} from '../../../storage/repositories/audit-events.js';
import type { ApiContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import type { Page } from '../../schemas/common.js';
import type { AuditEventRecord, AuditListQuery } from '../../schemas/audit.js';
import { limits } from '../../../limits/limits.js';

type AuditEventJson = z.infer<typeof AuditEventRecord>;

export async function listAuditEvents(
  em: EntityManager,
  query: z.output<typeof AuditListQuery>,
): Promise<Page<AuditEventJson>> {
  const { rows, total } = await auditEventsPage(em, query);
  return {
    items: rows.map((r) => ({
      v: r.v,
      id: Number(r.id),
      at: new Date(r.at).toISOString(),
      actor: r.actor,
      action: r.action,
      kind: r.kind,
      record_id: r.record_id,
      record_name: r.record_name,
      changes: r.changes,
      prev_hash: r.prev_hash,
      hash: r.hash,
      record_gone: Boolean(r.record_gone),
    })),
    total,
    limit: query.limit,
    offset: query.offset,
  };
}

export async function verifyAuditLog(ctx: ApiContext, em: EntityManager): Promise<VerifyResult> {
  if (!ctx.options.auditKey && (await hasHashedAuditEvents(em))) throw new ApiError('AUDIT_KEY_REQUIRED');
  const verifier = new ChainVerifier(ctx.options.auditKey);
  let after = -1;
  for (;;) {
    const rows = await auditEventsAfter(em, after, limits.auditVerifyBatchRows);
    for (const r of rows) {
      const event: StoredEvent = { ...r, id: Number(r.id), at: new Date(r.at) };
      if (!verifier.add(event)) return verifier.result;
    }
    if (rows.length < limits.auditVerifyBatchRows) return verifier.result;
    after = Number(rows[rows.length - 1]!.id);
  }
}
