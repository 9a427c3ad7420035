/**
 * Operator actions in the audit log (docs/api/events.md#message-history-stream: the operator action log names the user):
 * service start, stop and restart, redispatch, redeliver and uploads by hand. The action runs
 * first in its own transaction (the dispatcher's and the supervisor's); its event follows once
 * it succeeded, so the log never shows an action that did not happen.
 *
 * Events are written by group commit: actions that finish while a write is under way go
 * together in the next transaction, with one turn of the audit chain's lock. Writing each in
 * its own transaction made every upload by hand wait in line for that lock and cost a commit
 * more per message (as2-loopback fell from about 300 to 170 messages/s).
 */
import type { Caller } from './auth/caller.js';
import { Batcher } from '../protocol/batcher.js';
import type { AuditChange } from '../storage/entities/audit-event.js';
import type { AuditAction, AuditEntry, AuditRecorder } from './audit/recorder.js';
import type { Orm } from '../storage/db.js';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface OperatorAction {
  action: Extract<AuditAction, 'start' | 'stop' | 'restart' | 'redispatch' | 'redeliver' | 'upload'>;
  kind: 'service' | 'message';
  record_id: string;
  record_name: string;
  changes: AuditChange[];
}

/** Writes operator actions' audit events; resolves once the event is committed. */
export class OperatorActionLog {
  readonly #batcher: Batcher<AuditEntry, void>;

  constructor(orm: Orm, audit: AuditRecorder) {
    this.#batcher = new Batcher(async (entries) => {
      await (orm.em.fork() as EntityManager).transactional((em) =>
        audit.recordMany(em as EntityManager, entries),
      );
      return entries.map(() => undefined);
    });
  }

  record(caller: Caller, entry: OperatorAction): Promise<void> {
    return this.#batcher.submit({ actor: caller.actor, ...entry });
  }
}
