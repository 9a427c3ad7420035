/**
 * Writing audit events. Called inside the transaction of the change it records, so a change
 * and its event commit together or not at all. Writers across processes take turns on an
 * advisory lock, because each event's hash depends on the one before.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditChange } from '../../storage/entities/audit-event.js';
import { diffChanges } from './changes.js';
import { auditEventVersion, eventHash, type ChainedFields } from './chain.js';

/** Arbitrary constant naming the audit chain's advisory lock. */
const auditLockKey = 7_313_000_001;

/** Changes to records, and operator actions on the running service (docs/api/events.md#message-history-stream: they name the user). */
export type AuditAction =
  | 'create'
  | 'update'
  | 'delete'
  | 'revoke'
  | 'start'
  | 'stop'
  | 'restart'
  | 'redispatch'
  | 'redeliver'
  | 'upload';

export interface AuditEntry {
  actor: string;
  action: AuditAction;
  kind: string;
  record_id: string | number;
  record_name: string;
  changes: AuditChange[];
}

/** What the audit log records of one kind of record: its kind name and the fields it compares. */
export interface AuditedKind {
  kind: string;
  fields: readonly string[];
  /** Fields recorded as `{field, secret: true}` without values. */
  secrets?: readonly string[];
}

/** The record an event is about, as the log names it. */
export interface AuditedRecord {
  id: string | number;
  name: string;
}

type Values = Record<string, unknown>;

export class AuditRecorder {
  constructor(private readonly key: string | undefined) {}

  /** Records the creation of a record with the values it was created with. */
  async created(em: EntityManager, actor: string, spec: AuditedKind, record: AuditedRecord, after: Values) {
    await this.#change(
      em,
      actor,
      'create',
      spec,
      record,
      diffChanges(undefined, after, spec.fields, spec.secrets),
    );
  }

  /** Records what changed between two states; returns false, writing nothing, when nothing did. */
  async updated(
    em: EntityManager,
    actor: string,
    spec: AuditedKind,
    record: AuditedRecord,
    before: Values,
    after: Values,
  ): Promise<boolean> {
    const changes = diffChanges(before, after, spec.fields, spec.secrets);
    if (changes.length === 0) return false;
    await this.#change(em, actor, 'update', spec, record, changes);
    return true;
  }

  /** Records the deletion of a record with the values it had. */
  async deleted(em: EntityManager, actor: string, spec: AuditedKind, record: AuditedRecord, before: Values) {
    await this.#change(
      em,
      actor,
      'delete',
      spec,
      record,
      diffChanges(before, undefined, spec.fields, spec.secrets),
    );
  }

  async #change(
    em: EntityManager,
    actor: string,
    action: AuditAction,
    spec: AuditedKind,
    record: AuditedRecord,
    changes: AuditChange[],
  ): Promise<void> {
    await this.record(em, {
      actor,
      action,
      kind: spec.kind,
      record_id: record.id,
      record_name: record.name,
      changes,
    });
  }

  /** Must run inside a transaction (`em` is the transactional manager). */
  async record(em: EntityManager, entry: AuditEntry): Promise<void> {
    await this.recordMany(em, [entry]);
  }

  /** Several events in order, with one lock and one insert: for changes of many records at once (imports). */
  async recordMany(em: EntityManager, entries: AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const conn = em.getConnection();
    const ctx = em.getTransactionContext();
    await conn.execute('select pg_advisory_xact_lock(?)', [auditLockKey], 'all', ctx);
    const [head] = await conn.execute<{ hash: string }[]>(
      'select hash from audit_event order by id desc limit 1',
      [],
      'all',
      ctx,
    );
    const ids = await conn.execute<{ id: string }[]>(
      "select nextval('audit_event_id_seq') as id from generate_series(1, ?)",
      [entries.length],
      'all',
      ctx,
    );
    const sortedIds = ids.map((r) => Number(r.id)).sort((a, b) => a - b);
    let prevHash = head?.hash ?? '';
    const rows: unknown[][] = entries.map((entry, i) => {
      const fields: ChainedFields = {
        v: auditEventVersion,
        id: sortedIds[i]!,
        at: new Date(),
        actor: entry.actor,
        action: entry.action,
        kind: entry.kind,
        record_id: String(entry.record_id),
        record_name: entry.record_name,
        changes: entry.changes,
        prev_hash: prevHash,
      };
      const hash = this.key ? eventHash(this.key, fields) : '';
      // Each event chains to the one before it, exactly as one record() call after another would.
      prevHash = hash;
      return [
        fields.id,
        fields.v,
        fields.at,
        fields.actor,
        fields.action,
        fields.kind,
        fields.record_id,
        fields.record_name,
        JSON.stringify(fields.changes),
        fields.prev_hash,
        hash,
      ];
    });
    // 11 parameters per row; chunks stay far below PostgreSQL's 65,535 parameters.
    for (let start = 0; start < rows.length; start += 1000) {
      const chunk = rows.slice(start, start + 1000);
      await conn.execute(
        `insert into audit_event (id, v, at, actor, action, kind, record_id, record_name, changes, prev_hash, hash)
         values ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)').join(', ')}`,
        chunk.flat(),
        'run',
        ctx,
      );
    }
  }
}
