/**
 * Reading the audit log: a filtered page, newest first, and the whole chain in id order for
 * its verification. Read on the driver as rows, not entities: the verifier needs every column
 * exactly as stored, and the ids are bigints read as text.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditChange } from '../entities/audit-event.js';
import { inEntityTx } from '../sql.js';

interface AuditEventRow {
  id: string;
  v: number;
  at: Date;
  actor: string;
  action: string;
  kind: string;
  record_id: string;
  record_name: string;
  changes: AuditChange[];
  prev_hash: string;
  hash: string;
}

interface AuditFilters {
  kind?: string | undefined;
  action?: string | undefined;
  actor?: string | undefined;
  record_id?: string | undefined;
  record_name?: string | undefined;
  /** From this time on (inclusive). */
  from?: Date | undefined;
  /** Before this time. */
  to?: Date | undefined;
  limit: number;
  offset: number;
}

/**
 * The events matching every filter given, newest first, with the total; `record_gone` says
 * whether the record an event is about has been deleted since (a delete event of it exists).
 */
export async function auditEventsPage(
  em: EntityManager,
  f: AuditFilters,
): Promise<{ rows: (AuditEventRow & { record_gone: boolean })[]; total: number }> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const field of ['kind', 'action', 'actor', 'record_id', 'record_name'] as const) {
    if (f[field] !== undefined) {
      where.push(`e.${field} = ?`);
      params.push(f[field]);
    }
  }
  if (f.from) {
    where.push('e.at >= ?');
    params.push(f.from);
  }
  if (f.to) {
    where.push('e.at < ?');
    params.push(f.to);
  }
  const clause = where.length > 0 ? `where ${where.join(' and ')}` : '';
  const conn = em.getConnection();
  const [count] = await conn.execute<{ n: string }[]>(
    `select count(*) as n from audit_event e ${clause}`,
    params,
  );
  const rows = await conn.execute<(AuditEventRow & { record_gone: boolean })[]>(
    `select e.*, exists (select 1 from audit_event d
                          where d.kind = e.kind and d.record_id = e.record_id and d.action = 'delete') as record_gone
       from audit_event e ${clause} order by e.id desc limit ? offset ?`,
    [...params, f.limit, f.offset],
  );
  return { rows, total: Number(count?.n ?? 0) };
}

/** Whether any event carries a hash (was written with an audit key). */
export async function hasHashedAuditEvents(em: EntityManager): Promise<boolean> {
  const [hashed] = await em
    .getConnection()
    .execute<{ n: string }[]>("select count(*) as n from audit_event where hash <> ''");
  return Number(hashed?.n ?? 0) > 0;
}

/** Up to `limit` events after the id `after`, in id order: the chain read in batches. */
export function auditEventsAfter(em: EntityManager, after: number, limit: number): Promise<AuditEventRow[]> {
  return em
    .getConnection()
    .execute<AuditEventRow[]>('select * from audit_event where id > ? order by id limit ?', [after, limit]);
}

/** The advisory lock that makes writers of the audit chain take turns (one chain, one order). */
const auditLockKey = 7_313_000_001;

/**
 * Takes the audit chain's turn for this transaction, then reads the hash the chain ends with
 * and reserves `count` ids for the next events, in order. SQL, not the entity API: the lock and
 * the sequence must be taken before any event is built, since each event's hash covers its id
 * and its predecessor's hash, and the ORM would number the rows only when it flushes them.
 */
export async function takeAuditChainTurn(
  em: EntityManager,
  count: number,
): Promise<{ prevHash: string; ids: number[] }> {
  const tx = inEntityTx(em);
  await tx.all('select pg_advisory_xact_lock(?)', [auditLockKey]);
  const [head] = await tx.all<{ hash: string }>('select hash from audit_event order by id desc limit 1');
  const ids = await tx.all<{ id: string }>(
    "select nextval('audit_event_id_seq') as id from generate_series(1, ?)",
    [count],
  );
  return { prevHash: head?.hash ?? '', ids: ids.map((r) => Number(r.id)).sort((a, b) => a - b) };
}

/** One audit event as it is inserted, its id and hash already given (takeAuditChainTurn). */
export type NewAuditEvent = Omit<AuditEventRow, 'id'> & { id: number };

/**
 * Inserts audit events as given, many rows per statement. SQL, not the entity API: an import
 * records thousands of events in one transaction, and the ORM would insert them one by one.
 */
export async function insertAuditEvents(em: EntityManager, events: NewAuditEvent[]): Promise<void> {
  const tx = inEntityTx(em);
  // 11 parameters per row; chunks stay far below PostgreSQL's 65,535 parameters.
  for (let start = 0; start < events.length; start += 1000) {
    const chunk = events.slice(start, start + 1000);
    await tx.all(
      `insert into audit_event (id, v, at, actor, action, kind, record_id, record_name, changes, prev_hash, hash)
       values ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)').join(', ')}`,
      chunk.flatMap((e) => [
        e.id,
        e.v,
        e.at,
        e.actor,
        e.action,
        e.kind,
        e.record_id,
        e.record_name,
        JSON.stringify(e.changes),
        e.prev_hash,
        e.hash,
      ]),
    );
  }
}
