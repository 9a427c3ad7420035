/**
 * Writing audit events. Called inside the transaction of the change it records, so a change
 * and its event commit together or not at all. Writers across processes take turns on an
 * advisory lock, because each event's hash depends on the one before.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditChange } from '../../storage/entities/audit-event.js';
import { diffChanges } from './changes.js';
import { auditEventVersion, eventHash, type ChainedFields } from './chain.js';
import {
  insertAuditEvents,
  takeAuditChainTurn,
  type NewAuditEvent,
} from '../../storage/repositories/audit-events.js';

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
  | 'upload'
  | 'export';

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
    const changes = diffChanges(undefined, after, spec.fields, spec.secrets);
    await this.#change(em, actor, 'create', spec, record, changes);
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
    const changes = diffChanges(before, undefined, spec.fields, spec.secrets);
    await this.#change(em, actor, 'delete', spec, record, changes);
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
    const turn = await takeAuditChainTurn(em, entries.length);
    let prevHash = turn.prevHash;
    const events = entries.map((entry, i): NewAuditEvent => {
      const fields: ChainedFields = {
        v: auditEventVersion,
        id: turn.ids[i]!,
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
      return { ...fields, hash };
    });
    await insertAuditEvents(em, events);
  }
}
