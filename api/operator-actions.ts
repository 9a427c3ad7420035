/**
 * Operator actions in the audit log (spec 6.1: the operator action log names the user):
 * service start, stop and restart, redispatch, redeliver and uploads by hand. The action runs
 * first in its own transaction (the dispatcher's and the supervisor's); its event follows once
 * it succeeded, so the log never shows an action that did not happen.
 */
import type { Caller } from './auth/caller.js';
import { inTransaction, type ApiContext } from './context.js';
import type { AuditChange } from '../storage/entities/audit-event.js';
import type { AuditAction } from '../runtime/audit/recorder.js';

export interface OperatorAction {
  action: Extract<AuditAction, 'start' | 'stop' | 'restart' | 'redispatch' | 'redeliver' | 'upload'>;
  kind: 'service' | 'message';
  record_id: string;
  record_name: string;
  changes: AuditChange[];
}

export async function recordOperatorAction(
  ctx: ApiContext,
  caller: Caller,
  entry: OperatorAction,
): Promise<void> {
  await inTransaction(ctx, (em) => ctx.audit.record(em, { actor: caller.actor, ...entry }));
}
