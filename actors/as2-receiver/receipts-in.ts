/**
 * An asynchronous receipt (MDN) for a message pier sent, arriving at the receiver: matched
 * by Original-Message-ID, verified against the partner's certificates, its MIC compared
 * with the one computed when sending, and the waiting delivery settled.
 */
import type { CoreClient } from '../../protocol/worker-host/host.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { keepBytes, type KeptStage } from '../../storage/payloads/inline.js';
import { countReceipt, judgeReceipt, type Verdict } from '../as2-shared/judge-receipt.js';
import { entityBytes, headerValue } from '../as2-shared/headers.js';
import { parseMdn } from '../as2/index.js';
import type { Answer, Incoming } from './receive.js';

const plain = (status: number, text: string): Answer => ({
  status,
  headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  body: Buffer.from(`${text}\n`),
});

/** A receipt rather than a message: multipart/report, or signed around one. */
export function looksLikeReceipt(incoming: Incoming): boolean {
  const type = (headerValue(incoming.headers, 'content-type') ?? '').toLowerCase();
  if (type.startsWith('multipart/report')) return true;
  if (!type.startsWith('multipart/signed')) return false;
  return /content-type:\s*multipart\/report/i.test(incoming.body.subarray(0, 4096).toString('latin1'));
}

export async function receiveReceipt(
  core: CoreClient,
  store: PayloadStore,
  incoming: Incoming,
): Promise<Answer> {
  let originalMessageId: string | null;
  try {
    originalMessageId = parseMdn(incoming.body, incoming.headers as Record<string, string>).originalMessageId;
  } catch (error) {
    return plain(400, `Unreadable receipt: ${(error as Error).message}`);
  }
  if (!originalMessageId) return plain(400, 'The receipt has no Original-Message-ID');
  const { sent } = await core.ask({
    type: 'as2_sent',
    original_message_id: originalMessageId.trim().slice(0, 1024),
  });
  if (!sent) return plain(404, `No message was sent with Message-ID ${originalMessageId}`);
  const verdict = judgeReceipt(
    incoming.body,
    incoming.headers as Record<string, string>,
    sent.verification,
    sent.info,
  );
  countReceipt(core.metrics, verdict);
  if (sent.awaiting_delivery_id === null) {
    // Kept as evidence when the message has none (its delivery timed out); a second copy of a
    // receipt already stored does not replace it.
    const kept = sent.has_receipt ? null : await storeReceipt(store, sent.message_id, incoming);
    return noteUnawaited(core, sent.message_id, originalMessageId, verdict, kept);
  }
  // Stored under the sent message before the delivery is settled with it.
  const kept = await storeReceipt(store, sent.message_id, incoming);
  const ack = {
    type: 'as2_ack' as const,
    message_id: sent.message_id,
    delivery_id: sent.awaiting_delivery_id,
    ok: verdict.ok,
    text: verdict.text,
    info: { mdn: verdict.info, receipt_message_id: headerValue(incoming.headers, 'message-id') ?? null },
    ...receiptFields(kept),
  };
  // A fast partner's receipt can overtake the sender's report of its attempt.
  for (let tries = 0; tries < 40; tries++) {
    const done = await core.ask(ack);
    if (!done.early) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return plain(200, 'Receipt received');
}

/**
 * The receipt as it arrived (Content-Type and body) as the message's `receipt` stage, or null
 * when it was not stored. A stage is written once: after a redelivery the first receipt stays
 * (as for synchronous receipts, see the sender's #keepReceipt).
 */
function storeReceipt(store: PayloadStore, messageId: string, incoming: Incoming): Promise<KeptStage | null> {
  const bytes = entityBytes(
    { 'Content-Type': headerValue(incoming.headers, 'content-type') ?? 'application/octet-stream' },
    incoming.body,
  );
  return keepBytes(store, { messageId, stage: 'receipt' }, bytes).catch(() => null);
}

const receiptFields = (kept: KeptStage | null) => ({
  receipt_size: kept?.size_bytes ?? null,
  ...(kept?.content !== undefined ? { receipt_content: kept.content } : {}),
});

/**
 * A receipt for a message with no delivery waiting for it: it came after the receipt timeout
 * failed the delivery, or it is a second copy. Nothing is settled or replaced; the message gets
 * a history line saying what the receipt said (and the receipt's bytes when it had none), and
 * the partner an answer that it arrived.
 */
async function noteUnawaited(
  core: CoreClient,
  messageId: string,
  originalMessageId: string,
  verdict: Verdict,
  kept: KeptStage | null,
): Promise<Answer> {
  core.log('warn', 'a receipt arrived for a message with no delivery waiting for it', {
    message_id: messageId,
    original_message_id: originalMessageId,
  });
  const text = `A receipt arrived when no delivery was waiting for it (after the receipt timeout, or again); it changed nothing. ${verdict.text}`;
  await core.ask({
    type: 'as2_ack',
    message_id: messageId,
    delivery_id: null,
    ok: verdict.ok,
    text: text.slice(0, 2048),
    info: {},
    ...receiptFields(kept),
  });
  return plain(200, 'Receipt received; no delivery was waiting for it, so it changed nothing');
}
