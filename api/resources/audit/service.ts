/** Reading and verifying the audit log (spec 2.15, 4.3). The log itself is written by runtime/audit. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { ChainVerifier, type StoredEvent, type VerifyResult } from '../../../runtime/audit/chain.js';
import type { ApiContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import type { Page } from '../../schemas/common.js';
import type { AuditEventRecord, AuditListQuery } from '../../schemas/audit.js';

type AuditEventJson = z.infer<typeof AuditEventRecord>;

interface Row {
  id: string;
  v: number;
  at: Date;
  actor: string;
  action: string;
  kind: string;
  record_id: string;
  record_name: string;
  changes: StoredEvent['changes'];
  prev_hash: string;
  hash: string;
  record_gone?: boolean;
}

export async function listAuditEvents(
  em: EntityManager,
  query: z.output<typeof AuditListQuery>,
): Promise<Page<AuditEventJson>> {
  const where: string[] = [];
  const params: unknown[] = [];
  const equals = ['kind', 'action', 'actor', 'record_id', 'record_name'] as const;
  for (const field of equals) {
    if (query[field] !== undefined) {
      where.push(`e.${field} = ?`);
      params.push(query[field]);
    }
  }
  if (query.from) {
    where.push('e.at >= ?');
    params.push(query.from);
  }
  if (query.to) {
    where.push('e.at < ?');
    params.push(query.to);
  }
  const clause = where.length > 0 ? `where ${where.join(' and ')}` : '';
  const conn = em.getConnection();
  const [count] = await conn.execute<{ n: string }[]>(
    `select count(*) as n from audit_event e ${clause}`,
    params,
  );
  const rows = await conn.execute<Row[]>(
    `select e.*, exists (select 1 from audit_event d
                          where d.kind = e.kind and d.record_id = e.record_id and d.action = 'delete') as record_gone
       from audit_event e ${clause} order by e.id desc limit ? offset ?`,
    [...params, query.limit, query.offset],
  );
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
    total: Number(count?.n ?? 0),
    limit: query.limit,
    offset: query.offset,
  };
}

const batchSize = 1000;

export async function verifyAuditLog(ctx: ApiContext, em: EntityManager): Promise<VerifyResult> {
  const conn = em.getConnection();
  if (!ctx.options.auditKey) {
    const [hashed] = await conn.execute<{ n: string }[]>(
      "select count(*) as n from audit_event where hash <> ''",
    );
    if (Number(hashed?.n ?? 0) > 0) throw new ApiError('AUDIT_KEY_REQUIRED');
  }
  const verifier = new ChainVerifier(ctx.options.auditKey);
  let after = -1;
  for (;;) {
    const rows = await conn.execute<Row[]>('select * from audit_event where id > ? order by id limit ?', [
      after,
      batchSize,
    ]);
    for (const r of rows) {
      const event: StoredEvent = { ...r, id: Number(r.id), at: new Date(r.at) };
      if (!verifier.add(event)) return verifier.result;
    }
    if (rows.length < batchSize) return verifier.result;
    after = Number(rows[rows.length - 1]!.id);
  }
}
