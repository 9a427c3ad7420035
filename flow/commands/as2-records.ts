/**
 * The as2_message rows: what AS2 did to a message, duplicate lookups, and settling the
 * delivery of a sent message when its asynchronous receipt arrives or does not in time.
 *
 * Locks (docs/architecture.md, "Lock order of the message flow"): settleAwaited and
 * receiptsOverdue take the `message` rows (id order, FOR NO KEY UPDATE), then the `delivery`
 * row, then `as2_message`, `payload` and `message_history`; then alerts. recordAs2Batch runs
 * under its caller's message locks (or on messages its caller is inserting).
 */
import type { As2Record, As2RecordRequest, As2SentResponse } from '../../protocol/as2-protocol.js';
import { toPem } from '../../pki/certificates/certificate-info.js';
import { alertTurn, takeAlertTurns } from '../alerts/alerts.js';
import { deliveryFailed, receiptArrived, receiptLate, receiptOverdue } from '../alerts/flow-alerts.js';
import { acknowledge, awaitingAck } from './acks.js';
import { statesFor } from '../tables/delivery-states.js';
import { addHistory, lockMessages, pgArray, type Tx } from '../tx.js';
import type { MessageStatus } from '../tables/status.js';
import { ContentBlob, contentSql } from '../../storage/content-blob.js';

export interface MessageAs2Record {
  message_id: string;
  record: As2Record;
}

/** One record asked on its own (before an asynchronous receipt is awaited). */
export function recordAs2(tx: Tx, at: Date, r: As2RecordRequest): Promise<void> {
  const { type: _type, message_id, ...record } = r;
  return recordAs2Batch(tx, at, [{ message_id, record }]);
}

/**
 * The as2_message rows and payload stages of some records, as the statements take them (JSON;
 * the stages' bytes go into `blob`).
 */
export function as2RecordRows(
  at: Date,
  records: MessageAs2Record[],
  blob: ContentBlob,
): { rows: string; stages: string } {
  // Loops, not callbacks made per call: part of every acceptance, and V8 compiles such a
  // callback again after each collection (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
  // One row per message: PostgreSQL refuses to upsert the same row twice in a statement.
  const latest = new Map<string, As2Record>();
  for (const { message_id, record } of records) latest.set(message_id, record);
  const rows = [];
  for (const [message_id, r] of latest)
    rows.push({
      message_id,
      direction: r.direction,
      as2_message_id: r.as2_message_id,
      as2_from: r.as2_from,
      as2_to: r.as2_to,
      processed: r.processed,
      info: r.info,
      awaiting_delivery_id: r.awaiting?.delivery_id ?? null,
      receipt_due_at: r.awaiting ? new Date(at.getTime() + r.awaiting.hours * 3_600_000) : null,
      receipt_alert_at: receiptAlertAt(at, r.awaiting),
    });
  const stages = [];
  for (const { message_id, record } of records)
    for (const s of record.stages)
      stages.push({ message_id, stage: s.stage, size_bytes: s.size_bytes, ...blob.add(s.content) });
  return { rows: JSON.stringify(rows), stages: JSON.stringify(stages) };
}

/**
 * When a receipt still missing raises receipts_missing for the partner: alert_minutes after
 * posting, if that comes before the receipt timeout (then the timeout's mdn_overdue raises it).
 */
function receiptAlertAt(at: Date, awaiting: As2Record['awaiting']): Date | null {
  if (!awaiting || awaiting.alert_minutes <= 0 || awaiting.alert_minutes * 60 >= awaiting.hours * 3600)
    return null;
  return new Date(at.getTime() + awaiting.alert_minutes * 60_000);
}

/**
 * The CTEs that store records (`rows`, `stages`: placeholders of as2RecordRows' JSON, `blob` of
 * its stages' bytes, `at` of the time) for the messages a `keep` CTE names in its `id` column,
 * or every message when `keep` is empty: used alone below, and inside the acceptance's insert
 * (flow/commands/accept.ts).
 */
export function as2RecordCtes(
  p: { at: string; rows: string; stages: string; blob: string },
  keep = '',
): string {
  const kept = keep ? ` join ${keep} on ${keep}.id = x.message_id` : '';
  return `as2s as (
       insert into payload (message_id, stage, size_bytes, stored_at, content)
       select x.message_id, x.stage, x.size_bytes, ${p.at}, ${contentSql(p.blob, 'x')}
         from jsonb_to_recordset(${p.stages}::jsonb) as x(message_id uuid, stage text, size_bytes bigint,
              content_at int, content_bytes int)${kept}
       on conflict do nothing
     ), as2r as (
       insert into as2_message (message_id, direction, as2_message_id, as2_from, as2_to, processed, info,
                                awaiting_delivery_id, receipt_due_at, receipt_alert_at, created_at, updated_at)
       select x.message_id, x.direction, x.as2_message_id, x.as2_from, x.as2_to, x.processed, x.info,
              x.awaiting_delivery_id, x.receipt_due_at, x.receipt_alert_at, ${p.at}, ${p.at}
         from jsonb_to_recordset(${p.rows}::jsonb) as x(message_id uuid, direction text, as2_message_id text,
              as2_from text, as2_to text, processed boolean, info jsonb, awaiting_delivery_id bigint,
              receipt_due_at timestamptz, receipt_alert_at timestamptz)${kept}
       on conflict (message_id) do update set as2_message_id = excluded.as2_message_id,
         processed = excluded.processed, info = as2_message.info || excluded.info,
         awaiting_delivery_id = excluded.awaiting_delivery_id, receipt_due_at = excluded.receipt_due_at,
         receipt_alert_at = excluded.receipt_alert_at, updated_at = excluded.updated_at
     )`;
}

/** The history lines some records ask for (a synchronous receipt's outcome). */
export async function as2RecordHistory(tx: Tx, at: Date, records: MessageAs2Record[]): Promise<void> {
  const lines = [];
  for (const { message_id, record } of records)
    if (record.history) lines.push({ message_id, kind: record.history.kind, text: record.history.text });
  await addHistory(tx, at, lines);
}

/**
 * Stores what AS2 did to these messages in one statement whatever their number (two with
 * history lines): the as2_message rows (a later record of the same message adds to its
 * info) and the extra payload stages. Runs inside the acceptance or result transaction.
 */
export async function recordAs2Batch(tx: Tx, at: Date, records: MessageAs2Record[]): Promise<void> {
  if (records.length === 0) return;
  const blob = new ContentBlob();
  const { rows, stages } = as2RecordRows(at, records, blob);
  // The rows and the stages in one statement, prepared: inserts from JSON have no plan that
  // statistics could change.
  await tx.prepared(
    'as2-record-batch',
    `with ${as2RecordCtes({ at: '$1', rows: '$2', stages: '$3', blob: '$4' })} select 1`,
    [at, rows, stages, blob.bytes()],
  );
  await as2RecordHistory(tx, at, records);
}

export const duplicateKey = (r: { as2_from: string; as2_message_id: string }) =>
  `${r.as2_from}\u0000${r.as2_message_id}`;

export interface EarlierMessage {
  message_id: string;
  status: MessageStatus;
  has_receipt: boolean;
  /** The receipt's bytes (base64) when it is kept inline; null when in the store or none. */
  receipt: string | null;
}

/**
 * The earlier inbound message processed successfully (a resend after an error receipt is not a
 * duplicate) of each (AS2-From, Message-ID) in two text arrays (the placeholders `from` and
 * `ids`), as a subquery of rows `as2_from, as2_message_id, message_id,
 * status, has_receipt, receipt` (base64 without PostgreSQL's line breaks, when kept inline): RFC
 * 4130 §7.4 duplicates. One index
 * probe per key (as2_message_inbound on both columns), whatever the statistics say: joined to
 * jsonb_to_recordset, an un-analyzed table let the planner probe by as2_from alone and read
 * every message the partner ever sent, each batch. Read in the acceptance's first statement
 * (flow/commands/accept.ts).
 */
export function inboundDuplicatesSql(p: { from: string; ids: string }): string {
  return `select k.as2_from, k.as2_message_id, e.message_id, e.status, e.has_receipt, e.receipt
       from unnest(${p.from}::text[], ${p.ids}::text[]) as k(as2_from, as2_message_id)
       cross join lateral (
         select a.message_id, m.status, r.message_id is not null as has_receipt,
                replace(encode(r.content, 'base64'), E'\n', '') as receipt
           from as2_message a join message m on m.id = a.message_id
           left join payload r on r.message_id = a.message_id and r.stage = 'receipt'
          where a.direction = 'inbound' and a.processed
            and a.as2_from = k.as2_from and a.as2_message_id = k.as2_message_id
          order by a.created_at limit 1
       ) e`;
}

/** The parameters of inboundDuplicatesSql for some keys, each key once. */
export function duplicateKeyArrays(keys: { as2_from: string; as2_message_id: string }[]): {
  from: string;
  ids: string;
} {
  // A loop, not callbacks made per call (docs/decisions/no-callbacks-made-per-call-on-the-message-path.md).
  const unique = new Map<string, { as2_from: string; as2_message_id: string }>();
  for (const key of keys) unique.set(duplicateKey(key), key);
  const from: string[] = [];
  const ids: string[] = [];
  for (const key of unique.values()) {
    from.push(key.as2_from);
    ids.push(key.as2_message_id);
  }
  return { from: pgArray(from), ids: pgArray(ids) };
}

export type DuplicateRow = EarlierMessage & { as2_from: string; as2_message_id: string };

/** The duplicates found, by key, each noted in the earlier message's history. */
export async function noteDuplicates(
  tx: Tx,
  at: Date,
  rows: DuplicateRow[],
): Promise<Map<string, EarlierMessage>> {
  const found = new Map<string, EarlierMessage>();
  for (const row of rows) found.set(duplicateKey(row), row);
  await addHistory(
    tx,
    at,
    rows.map((row) => ({
      message_id: row.message_id,
      kind: 'duplicate_received' as const,
      text: `The partner sent ${row.as2_message_id} again; answered with the stored receipt, not routed again`,
    })),
  );
  return found;
}

export async function findSent(tx: Tx, originalMessageId: string): Promise<As2SentResponse['sent']> {
  const [row] = await tx.all<{
    message_id: string;
    as2_to: string;
    info: Record<string, unknown>;
    awaiting_delivery_id: string | null;
    has_receipt: boolean;
  }>(
    `select a.message_id, a.as2_to, a.info, a.awaiting_delivery_id,
            exists (select 1 from payload p where p.message_id = a.message_id and p.stage = 'receipt') as has_receipt
       from as2_message a
      where a.direction = 'outbound' and a.as2_message_id = ? order by a.updated_at desc limit 1`,
    [originalMessageId],
  );
  if (!row) return null;
  const certs = await tx.all<{ der: Buffer }>(
    `select c.der from as2_remote_profile r
       join as2_profile_certificate pc on pc.business_partner_id = r.partner_id and pc.field = 'signature_certificate_ids'
       join certificate c on c.id = pc.certificate_id where r.as2id = ? order by pc.position`,
    [row.as2_to],
  );
  return {
    message_id: row.message_id,
    partner_as2id: row.as2_to,
    verification: certs.map((c) => toPem(Buffer.from(c.der))),
    info: row.info,
    awaiting_delivery_id: row.awaiting_delivery_id === null ? null : Number(row.awaiting_delivery_id),
    has_receipt: row.has_receipt,
  };
}

/**
 * awaiting_ack → delivered (positive receipt) or failed. False when the delivery was not
 * waiting, or none was (`deliveryId` null: a late or repeated receipt); the receipt is still
 * recorded as a history line. A partner's negative receipt raises delivery_failed, as any
 * failed delivery does; a deadline that passed raises mdn_overdue instead (its caller does),
 * so one cause is one alert.
 */
export async function settleAwaited(
  tx: Tx,
  at: Date,
  messageId: string,
  deliveryId: number | null,
  ok: boolean,
  text: string,
  cause: 'receipt' | 'deadline' = 'receipt',
): Promise<boolean | 'early'> {
  await lockMessages(tx, [messageId]);
  if (deliveryId === null) {
    await addHistory(tx, at, [{ message_id: messageId, kind: ok ? 'mdn_received' : 'mdn_refused', text }]);
    // Late, but a receipt: the partner does send them.
    await receiptArrived(tx, at, messageId);
    return false;
  }
  // Locked before its as2_message row is written: the flow's order (docs/architecture.md).
  const [current] = await tx.all<{ state: string; target: string }>(
    'select state, target from delivery where id = ? for no key update',
    [deliveryId],
  );
  // The sender has not reported its attempt yet: the receipt came first; asked again shortly.
  if (current?.state === statesFor('await_ack')[0]) return 'early';
  await tx.all(
    `update as2_message set awaiting_delivery_id = null, receipt_due_at = null, receipt_alert_at = null,
            updated_at = ? where message_id = ?`,
    [at, messageId],
  );
  const settled = await acknowledge(tx, at, {
    messageId,
    deliveryId,
    ok,
    text,
    receiptKind: ok ? 'mdn_received' : 'mdn_refused',
  });
  if (settled && cause === 'receipt') await receiptArrived(tx, at, messageId);
  if (settled && !ok && cause === 'receipt' && current) {
    await deliveryFailed(tx, at, {
      delivery_id: deliveryId,
      message_id: messageId,
      target: current.target,
      text,
    });
  }
  return settled;
}

/**
 * Deliveries whose receipt did not come within receipt_timeout_hours fail. Only deliveries
 * still awaiting_ack count: the wait is recorded before posting, so a post that failed (or is
 * being retried) left one behind that no receipt was ever due for. Receipts late by their
 * sender's receipt_alert_minutes raise receipts_missing for their partner in the same sweep,
 * hours before their deadline (the delivery keeps waiting); each late message counts once.
 */
export async function receiptsOverdue(tx: Tx, at: Date): Promise<number> {
  const late = await tx.all<{ message_id: string; target: string }>(
    // By key, as the deadline's rows below and for the same reason; the partial index on
    // receipt_alert_at finds the rows.
    `select a.message_id, d.target from as2_message a
       cross join lateral (select target from delivery d where d.id = a.awaiting_delivery_id and d.state = ? limit 1) d
      where a.receipt_alert_at is not null and a.receipt_alert_at <= ? order by a.receipt_alert_at limit 100`,
    [awaitingAck, at],
  );
  const due = await tx.all<{ message_id: string; awaiting_delivery_id: string; target: string }>(
    // The delivery is probed by its key for each row due (a lateral subquery with a limit is
    // never turned into a join): as a join, an un-analyzed table made the planner hash the
    // whole delivery table every few seconds to find none. Oldest first, which also makes
    // the partial index on receipt_due_at the cheapest way to the rows.
    `select a.message_id, a.awaiting_delivery_id, d.target from as2_message a
       cross join lateral (select target from delivery d where d.id = a.awaiting_delivery_id and d.state = ? limit 1) d
      where a.receipt_due_at is not null and a.receipt_due_at <= ? order by a.receipt_due_at limit 100`,
    [awaitingAck, at],
  );
  if (late.length === 0 && due.length === 0) return 0;
  const ids = [...late, ...due].map((d) => d.message_id);
  // All their messages first, in id order as every command locks messages, late and due
  // together: locked one by one in deadline order, or the due ones after the late ones' alert
  // turns, a command holding one of them and waiting for an alert could wait in a circle.
  await lockMessages(tx, ids);
  // The alerts the sweep raises (the system's state when a message ends in Error, each
  // partner's receipts_missing), their turns taken next, in the flow's order.
  const partners = await tx.all<{ to_party: string }>(
    'select distinct to_party from message where id = any(?::uuid[])',
    [pgArray(ids)],
  );
  await takeAlertTurns(tx, [
    ...(due.length > 0 ? [alertTurn('system_degraded', 'system', 'pier')] : []),
    ...partners.map((p) => alertTurn('receipts_missing', 'partner', p.to_party)),
  ]);
  for (const l of late) await receiptLate(tx, at, l);
  if (late.length > 0)
    await tx.all('update as2_message set receipt_alert_at = null where message_id = any(?::uuid[])', [
      pgArray(late.map((l) => l.message_id)),
    ]);
  for (const d of due) {
    await settleAwaited(
      tx,
      at,
      d.message_id,
      Number(d.awaiting_delivery_id),
      false,
      'No receipt (MDN) arrived within the receipt timeout',
      'deadline',
    );
    await receiptOverdue(tx, at, {
      message_id: d.message_id,
      delivery_id: Number(d.awaiting_delivery_id),
      target: d.target,
    });
  }
  return due.length;
}
