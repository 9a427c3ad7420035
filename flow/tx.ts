/**
 * SQL for the message flow: the statements every step shares (history lines, settling message
 * status), on the driver-level handles of storage/sql.ts. Rows go in as one JSON parameter
 * (jsonb_to_recordset), so a batch is one statement whatever its size.
 * PostgreSQL guesses 100 rows for jsonb_to_recordset whatever it holds, and against a table
 * of a few thousand rows that guess makes a join scan the whole table; statements that join
 * one on a table's key therefore also pass the keys as an array (`= any(?)`), whose length
 * the planner does know, so it probes the index instead.
 */
import { checkDegraded } from './alerts/flow-alerts.js';
import type { DeliveryState } from './tables/delivery-states.js';
import { deriveMessage, type MessageStage, type MessageStatus } from './tables/status.js';
import { pgArray, type Tx } from '../storage/sql.js';

export { direct, inTx, pgArray, type Tx } from '../storage/sql.js';
export { announce, readWorkNotice, workChannel } from './work-notice.js';

export type HistoryKind =
  | 'status_changed'
  | 'delivery_changed'
  | 'mdn_received'
  | 'mdn_refused'
  | 'duplicate_received'
  | 'redispatch_requested'
  | 'redeliver_requested';

export interface HistoryLine {
  message_id: string;
  kind: HistoryKind;
  old_status?: string | null;
  new_status?: string | null;
  text?: string | null;
  delivery_id?: number | null;
  target?: string | null;
  old_state?: string | null;
  new_state?: string | null;
}

/** Inserts history lines; takes two parameters, the time and the lines as JSON. */
export const historyInsert = `insert into message_history (message_id, created_at, kind, old_status, new_status, text,
                                                    delivery_id, target, old_state, new_state)
     select x.message_id, greatest(?::timestamptz, clock_timestamp()), x.kind, x.old_status, x.new_status, x.text, x.delivery_id, x.target, x.old_state, x.new_state
       from jsonb_to_recordset(?::jsonb) as x(message_id uuid, kind text, old_status text, new_status text, text text,
                                               delivery_id bigint, target text, old_state text, new_state text)`;

export async function addHistory(tx: Tx, at: Date, lines: HistoryLine[]): Promise<void> {
  if (lines.length === 0) return;
  await tx.all(historyInsert, [at, JSON.stringify(lines)]);
}

/**
 * Locks messages, in id order as every command does (docs/architecture.md, "Lock order of the
 * message flow"). FOR NO KEY UPDATE, not FOR UPDATE: the commands only change a message's status
 * and stage, and FOR UPDATE would block the FOR KEY SHARE that a claim's history lines take on
 * the message while the claim holds its deliveries, which closed a circle with a command
 * waiting for those deliveries (deadlocks under load, seen in the lock-order test).
 */
export async function lockMessages(tx: Tx, ids: readonly string[], skipLocked = false): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await tx.all<{ id: string }>(
    `select id from message where id = any(?::uuid[]) order by id for no key update${skipLocked ? ' skip locked' : ''}`,
    [pgArray([...new Set(ids)])],
  );
  return rows.map((r) => r.id);
}

export interface StatusChange {
  message_id: string;
  old_status: MessageStatus;
  status: MessageStatus;
  stage: MessageStage;
}

/** A locked message with the states of its deliveries, as the derivation needs it. */
export interface MessageDeliveries {
  id: string;
  status: MessageStatus;
  stage: MessageStage;
  refused: boolean;
  states: DeliveryState[] | string;
}

/**
 * Reads locked messages with the states of their deliveries; `changed` overrides states updated
 * in the same statement. The deliveries are read per message by a correlated subquery, so
 * each is an index probe by message_id whatever the statistics: as a join, an un-analyzed
 * table made the planner hash all of `delivery` to settle five messages.
 */
export function messageDeliveriesSql(changed?: string): string {
  return `select m.id, m.status, m.stage, m.refusal is not null as refused,
            coalesce((select array_agg(${changed ? `coalesce(${changed}.state, d.state)` : 'd.state'})
                        from delivery d ${changed ? `left join ${changed} on ${changed}.id = d.id` : ''}
                       where d.message_id = m.id), '{}') as states
       from message m
      where m.id = any(?::uuid[])`;
}

/** Derives status and stage from the deliveries as they are now; stores and records what changed. */
export async function storeSettled(tx: Tx, at: Date, rows: MessageDeliveries[]): Promise<StatusChange[]> {
  const changes: (StatusChange & { old_stage: MessageStage })[] = [];
  for (const row of rows) {
    const states = typeof row.states === 'string' ? parseTextArray(row.states) : row.states;
    const next = deriveMessage({ accepted: false, refused: row.refused, states });
    if (next.status !== row.status || next.stage !== row.stage) {
      changes.push({ message_id: row.id, old_status: row.status, old_stage: row.stage, ...next });
    }
  }
  if (changes.length === 0) return [];
  const lines: HistoryLine[] = changes
    .filter((c) => c.status !== c.old_status)
    .map((c) => ({
      message_id: c.message_id,
      kind: 'status_changed',
      old_status: c.old_status,
      new_status: c.status,
    }));
  await tx.prepared(
    'settle-store',
    `with changed as (
       update message m set status = x.status, stage = x.stage, updated_at = ?
         from jsonb_to_recordset(?::jsonb) as x(message_id uuid, status text, stage text)
        where m.id = x.message_id and m.id = any(?::uuid[])
       returning m.id
     )
     ${historyInsert}`,
    [at, JSON.stringify(changes), pgArray(changes.map((c) => c.message_id)), at, JSON.stringify(lines)],
  );
  if (changes.some((c) => c.status === 'Error' || c.status === 'Stalled')) await checkDegraded(tx, at);
  return changes;
}

/** Derives and stores the status and stage of locked messages from their deliveries. */
export async function settleMessages(tx: Tx, at: Date, ids: readonly string[]): Promise<StatusChange[]> {
  if (ids.length === 0) return [];
  const rows = await tx.all<MessageDeliveries>(messageDeliveriesSql(), [pgArray([...new Set(ids)])]);
  return storeSettled(tx, at, rows);
}

/** `{a,b}` as the driver may return an array of a type it does not know. */
function parseTextArray(text: string): DeliveryState[] {
  const inner = text.replace(/^\{|\}$/g, '');
  return (inner === '' ? [] : inner.split(',')) as DeliveryState[];
}
