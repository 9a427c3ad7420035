/**
 * Alerts the message flow raises (docs/alerts.md), each in the transaction that records its
 * cause, so the alert exists exactly when the cause does. Called from the dispatcher and the
 * AS2 core with one line each.
 */
import type { Tx } from '../../storage/sql.js';
import { raiseAlert } from './alerts.js';
import { alertLinks } from './links.js';
import { limits } from '../../limits/limits.js';

/** The delivery an alert of the flow is about, from its `failed` history line (failedLine). */
interface FailedDelivery {
  delivery_id: number;
  message_id: string;
  target: string;
  text: string;
}

/** What every delivery alert says of its delivery: the facts, the message's link, the instance. */
function aboutDelivery(d: FailedDelivery) {
  return {
    details: { message_id: d.message_id, delivery_id: d.delivery_id, target: d.target, error: d.text },
    link: alertLinks.message(d.message_id),
    instance: d.target,
  };
}

/** A delivery reached `failed` after its retries (or with an error retrying cannot fix). */
export async function deliveryFailed(tx: Tx, at: Date, d: FailedDelivery): Promise<void> {
  await raiseAlert(
    tx,
    {
      code: 'delivery_failed',
      subject_kind: 'delivery',
      subject_id: d.delivery_id,
      subject_name: `${d.message_id}/${d.target}`,
      summary: `Delivery of message ${d.message_id} to ${d.target} failed: ${d.text}`,
      dedupe_key: `delivery_failed:${d.target}`,
      ...aboutDelivery(d),
    },
    at,
  );
}

/**
 * The payload store failed a delivery's read or write (an S3 endpoint down, a bucket gone):
 * one alert per store, whichever message met it, so a dead endpoint is news once, not per message.
 */
export async function storageFailed(tx: Tx, at: Date, d: FailedDelivery): Promise<void> {
  await raiseAlert(
    tx,
    {
      code: 'storage_failed',
      subject_kind: 'storage',
      subject_id: 's3',
      subject_name: 'payload store (S3)',
      summary: `The payload store failed while ${d.target} delivered message ${d.message_id}: ${d.text}`,
      dedupe_key: 'storage_failed:storage:s3',
      ...aboutDelivery(d),
      // Fixed in the storage settings (or the store itself), not on the message.
      link: alertLinks.settings(),
    },
    at,
  );
}

/** The alert's facts from a delivery's `failed` history line. */
export function failedLine(line: {
  delivery_id?: number | null;
  message_id: string;
  target?: string | null;
  text?: string | null;
}) {
  return {
    delivery_id: line.delivery_id ?? 0,
    message_id: line.message_id,
    target: line.target ?? '',
    text: line.text ?? '',
  };
}

/** An AS2 receipt (MDN) did not arrive before its deadline. */
export async function receiptOverdue(
  tx: Tx,
  at: Date,
  d: { message_id: string; delivery_id: number; target: string | null },
): Promise<void> {
  await raiseAlert(
    tx,
    {
      code: 'mdn_overdue',
      subject_kind: 'message',
      subject_id: d.message_id,
      subject_name: d.message_id,
      summary: `No receipt (MDN) for message ${d.message_id} arrived within the receipt timeout`,
      details: { message_id: d.message_id, delivery_id: d.delivery_id, target: d.target },
      dedupe_key: `mdn_overdue:${d.target ?? ''}`,
      link: alertLinks.message(d.message_id),
      instance: d.target ? `as2-sender:${d.target}` : '',
    },
    at,
  );
  await receiptsMissing(tx, at, d.message_id, d.target, 'did not arrive within the receipt timeout');
}

/**
 * An AS2 receipt (MDN) is late by the sender's receipt_alert_minutes, its deadline still ahead:
 * the partner is taken to have stopped sending receipts (the delivery keeps waiting).
 */
export async function receiptLate(
  tx: Tx,
  at: Date,
  d: { message_id: string; target: string },
): Promise<void> {
  await receiptsMissing(tx, at, d.message_id, d.target, 'is late');
}

/**
 * A partner whose asynchronous receipt is overdue stopped sending receipts, as far as pier can
 * tell: `receipts_missing` stands for the partner (one alert however many messages wait) until
 * one of its receipts arrives (receiptArrived). Raised when a receipt is late by the sender's
 * receipt_alert_minutes and with each mdn_overdue; the alert table keeps it one while it stands.
 */
async function receiptsMissing(
  tx: Tx,
  at: Date,
  messageId: string,
  sender: string | null,
  why: string,
): Promise<void> {
  const [message] = await tx.all<{ to_party: string }>('select to_party from message where id = ?', [
    messageId,
  ]);
  if (!message?.to_party) return;
  const partner = message.to_party;
  const [row] = await tx.all<{ id: number }>('select id from partner where name = ?', [partner]);
  await raiseAlert(
    tx,
    {
      code: 'receipts_missing',
      subject_kind: 'partner',
      subject_id: partner,
      subject_name: partner,
      summary: `Partner ${partner} sends no receipts (MDN): the one for message ${messageId} ${why}`,
      details: { partner, message_id: messageId, target: sender },
      link: row ? alertLinks.partnerProfile(row.id) : alertLinks.message(messageId),
      instance: sender ? `as2-sender:${sender}` : '',
    },
    at,
  );
}

/**
 * A receipt arrived for a sent message: ends the partner's standing `receipts_missing`. One
 * indexed look per receipt; the alert is raised only when one stands.
 */
export async function receiptArrived(tx: Tx, at: Date, messageId: string): Promise<void> {
  const [row] = await tx.all<{ to_party: string; last: string | null }>(
    `select m.to_party,
            (select a.code from alert a where a.occurrence in ('receipts_missing:partner:' || m.to_party,
                                                               'receipts_resumed:partner:' || m.to_party)
              order by a.id desc limit 1) as last
       from message m where m.id = ?`,
    [messageId],
  );
  if (row?.last !== 'receipts_missing') return;
  await raiseAlert(
    tx,
    {
      code: 'receipts_resumed',
      subject_kind: 'partner',
      subject_id: row.to_party,
      subject_name: row.to_party,
      summary: `Partner ${row.to_party} sends receipts (MDN) again: one arrived for message ${messageId}`,
      details: { partner: row.to_party, message_id: messageId },
      link: alertLinks.message(messageId),
    },
    at,
  );
}

/** An inbound AS2 message was refused (signature, decryption, unknown partner, …). */
export async function messageRefused(
  tx: Tx,
  at: Date,
  m: { id: string; from_party: string; source_name: string; refusal: string },
): Promise<void> {
  await raiseAlert(
    tx,
    {
      code: 'message_refused',
      subject_kind: 'message',
      subject_id: m.id,
      subject_name: m.id,
      summary: `AS2 message from ${m.from_party || 'an unknown sender'} refused: ${m.refusal}`,
      details: { message_id: m.id, from: m.from_party, receiver: m.source_name, refusal: m.refusal },
      dedupe_key: `message_refused:${m.from_party}`,
      link: alertLinks.message(m.id),
      instance: `as2-receiver:${m.source_name}`,
    },
    at,
  );
}

/**
 * A partner sent an interchange whose envelope names another party as its sender, one it may not
 * send for: refused, kept, and news at once, as a forged sender may be an attack. One alert per
 * message (the dedupe key names it), so a second forgery is not folded into the first.
 */
export async function ediSenderMismatch(
  tx: Tx,
  at: Date,
  m: { id: string; from_party: string; source_type: string; source_name: string; mismatch: string },
): Promise<void> {
  await raiseAlert(
    tx,
    {
      code: 'edi_sender_mismatch',
      subject_kind: 'message',
      subject_id: m.id,
      subject_name: m.id,
      summary: `Partner ${m.from_party} sent an interchange for another party, refused: ${m.mismatch}`,
      details: { message_id: m.id, partner: m.from_party, source: m.source_name, problem: m.mismatch },
      dedupe_key: `edi_sender_mismatch:${m.id}`,
      link: alertLinks.message(m.id),
      instance: `${m.source_type}:${m.source_name}`,
    },
    at,
  );
}

/** Raises system_degraded when a failure takes the last 24 hours over the threshold. */
export async function checkDegraded(tx: Tx, at: Date): Promise<void> {
  const [row] = await tx.all<{ n: string }>(
    `select count(distinct message_id) as n from message_history
      where kind = 'status_changed' and new_status in ('Error', 'Stalled') and created_at >= ?`,
    [new Date(at.getTime() - 24 * 60 * 60 * 1000)],
  );
  const failed = Number(row?.n ?? 0);
  if (failed <= limits.degradedFailedMessages) return;
  await raiseAlert(
    tx,
    {
      code: 'system_degraded',
      subject_kind: 'system',
      subject_id: 'pier',
      subject_name: 'pier',
      summary: `${failed} messages failed in the last 24 hours (more than ${limits.degradedFailedMessages}): the system is Degraded`,
      details: { failed_last_24h: failed, threshold: limits.degradedFailedMessages },
      link: alertLinks.dashboard(),
    },
    at,
  );
}
