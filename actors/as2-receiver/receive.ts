/**
 * One AS2 message received: stored as it arrived (`received`, `headers`), opened with the
 * partner's profile (open-message.ts), the document stored (`unpacked`), the receipt built and
 * stored (`receipt`), and the message handed to the core with what AS2 did to it: accepted,
 * or Refused with the disposition the receipt carries. A duplicate of a processed message is
 * answered with the stored receipt and not routed again.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { SourceCore } from '../shared/acceptance-port.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { inlineBytes, keepBytes } from '../../storage/payloads/inline.js';
import { formatDisposition, processed } from '../as2/index.js';
import { headerSection, headerValue, as2Name, splitEntity } from '../as2-shared/headers.js';
import type { InboundContexts } from './contexts.js';
import { type MessageOpener } from './open-pool.js';
import type { Receipt } from './receipt.js';
import { cemRefused, outcomeOf, type ReceiptPart } from './open-message.js';
import { countReceived } from './count-received.js';
import type { CemMessage } from '../as2/cem/index.js';
import type { CemReceivedRequest } from '../../protocol/cem-protocol.js';
import { envelopeOf } from '../shared/edi-envelope.js';
import type { HoldBack } from '../shared/hold-back.js';
import type { HandoffGiver } from '../shared/handoff-giver.js';
import type { UncertainStages } from '../shared/uncertain-stages.js';
import { isDatabaseAway } from '../../flow/actor-commands.js';
import type { Acceptance, OfferedMessage } from '../../protocol/core-protocol.js';
import { limits } from '../../limits/limits.js';

export interface Incoming {
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  /**
   * Set when `body` is only the first bytes of a stranger's body (server.ts): its real length.
   * The prefix is kept as `received` for the operator; the rest was read and dropped.
   */
  truncatedFrom?: number;
}

/** A large message whose body was stored as `received` while it arrived (read-body.ts). */
export interface StoredIncoming {
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  stored: { messageId: string; bytes: number };
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** An asynchronous receipt to deliver after answering. */
  /** `messageId`: the stored message the receipt is for (its log lines name it). */
  asyncReceipt?: { address: string; receipt: Receipt; messageId: string };
}

export interface ReceiveDeps {
  core: SourceCore;
  store: PayloadStore;
  contexts: InboundContexts;
  opener: MessageOpener;
  identification: string;
  maxBytes: number;
  /** Whether the envelope of an X12 or EDIFACT payload goes with the message (actors/shared/edi-envelope.ts). */
  readEdiEnvelope?: boolean;
  /** Waits while the targets are far behind (actors/shared/hold-back.ts); none: never waits. */
  holdBack?: HoldBack;
  /** The receiver is stopping: a message held back goes on at once. */
  stopping?: () => boolean;
  /** Targets of this process the document may be handed to before the acceptance (handoff-giver.ts). */
  handoff?: HandoffGiver;
  /** Where the stages of an acceptance the database failed wait (it may have committed). */
  uncertain: UncertainStages;
}

const plain = (status: number, text: string): Answer => ({
  status,
  headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  body: Buffer.from(`${text}\n`),
});

/** Longest AS2 name or Message-ID taken; RFC 4130 allows 128 for names, more is absurd. */
const maxIdLength = 998;

export async function receiveMessage(
  deps: ReceiveDeps,
  incoming: Incoming | StoredIncoming,
): Promise<Answer> {
  const stored = 'stored' in incoming ? incoming.stored : null;
  const identity = identify(incoming);
  if ('status' in identity) {
    if (stored) await deps.store.removeMessage(stored.messageId);
    return identity;
  }
  const { as2From, as2To, originalMessageId } = identity;
  const h = (name: string) => headerValue(incoming.headers, name);
  const wantsReceipt = h('disposition-notification-to') !== undefined;
  const asyncAddress = h('receipt-delivery-option');

  const context = await deps.contexts.get(as2To, as2From);
  // Before anything is stored or opened: while the documents wait at the targets, the partner
  // waits for its receipt instead, and the CPU goes to delivering what was received.
  await deps.holdBack?.wait(deps.stopping);

  const id = stored ? stored.messageId : randomUUID();
  const headersBytes = headerSection(incoming.rawHeaders);
  const bodyBytes = stored ? stored.bytes : (incoming as Incoming).body.length;
  const arrived = Promise.all([
    stored
      ? { size_bytes: stored.bytes }
      : keepBytes(deps.store, { messageId: id, stage: 'received' }, (incoming as Incoming).body),
    keepBytes(deps.store, { messageId: id, stage: 'headers' }, headersBytes),
  ]);
  // A large body is handed over to a pool thread, so it must be on disk first; a small one is
  // kept while it is opened. Nothing reads these stages before the acceptance.
  if (bodyBytes >= limits.largeBodyFromBytes) await arrived;
  else arrived.catch(() => {}); // awaited below; a failure is reported there
  const opened = await deps.opener.open({
    messageId: id,
    body: stored ? null : (incoming as Incoming).body,
    receivedBytes: bodyBytes,
    headers: incoming.headers,
    context,
    maxPayloadBytes: deps.maxBytes * 4,
    as2From,
    as2To,
    originalMessageId,
    receipt: wantsReceipt
      ? { identification: deps.identification, options: h('disposition-notification-options') }
      : null,
  });
  const { payload } = opened;
  const [received, headers] = await arrived;
  // Stored before the acceptance (idempotent by its RequestID, so a repeated message changes
  // nothing): a failure here leaves the message unaccepted and the partner sends it again.
  const cemDone =
    opened.cem && !opened.refusal && context.found
      ? await deps.core.ask({
          type: 'cem_received',
          message_id: id,
          organization: context.organization,
          partner: context.partner,
          cem: cemWire(opened.cem),
        })
      : null;
  // A request the core refused is refused like one that cannot be read: processed/Error in the
  // receipt, and the message Refused with the reason (the receipt is made below, after this).
  const refusedLater = cemDone?.refused ? cemRefused : undefined;
  const refusal = refusedLater
    ? { disposition: formatDisposition(refusedLater), text: cemDone!.text }
    : opened.refusal;
  const outcome = refusedLater ? outcomeOf(refusedLater) : opened.outcome;
  const edi =
    deps.readEdiEnvelope !== false && payload !== null && refusal === null
      ? await envelopeOf({
          content: payload.content,
          head: opened.payloadHead ?? opened.document,
          open: () => deps.store.open({ messageId: id, stage: 'unpacked' }),
        })
      : undefined;

  // Stored in the acceptance's transaction: a processed message is a duplicate from then on.
  const as2Record: NonNullable<OfferedMessage['as2_record']> = {
    direction: 'inbound',
    as2_message_id: originalMessageId,
    as2_from: as2From,
    as2_to: as2To,
    processed: refusal === null,
    info: {
      headers: as2Headers(incoming.headers),
      ...opened.description,
      mdn: null,
      ...(refusal ? { error: refusal.text } : {}),
      ...('truncatedFrom' in incoming && incoming.truncatedFrom !== undefined
        ? { body_bytes: incoming.truncatedFrom, kept_bytes: incoming.body.length }
        : {}),
    },
    stages: [
      { stage: 'headers' as const, ...headers },
      ...(payload !== null ? [{ stage: 'received' as const, ...received }] : []),
    ],
  };
  // The message without its receipt: what the way is planned by while the receipt is made.
  const draft: OfferedMessage = {
    id,
    from: (context.found ? context.partner : as2From).slice(0, 255),
    to: (context.found ? context.organization : as2To).slice(0, 255),
    file_name: opened.fileName.slice(0, 1024),
    payload: payload !== null ? { stage: 'unpacked', ...payload } : { stage: 'received', ...received },
    ...(refusal ? { refusal: `Refused: ${outcome}: ${refusal.text}`.slice(0, 2048) } : {}),
    ...(cemDone && !cemDone.refused ? { unrouted: cemDone.text.slice(0, 2048) } : {}),
    ...(edi ? { edi } : {}),
    as2_record: as2Record,
  };
  const withReceipt = ({ receipt, receiptStage }: ReceiptPart): OfferedMessage => {
    if (!receipt || !receiptStage) return draft;
    const mdn = {
      mode: asyncAddress ? 'async' : 'sync',
      disposition: refusal?.disposition ?? formatDisposition(processed),
      signed: receipt.signed,
      message_id: receipt.headers['Message-ID'],
    };
    const stages = [...as2Record.stages, { stage: 'receipt' as const, ...receiptStage }];
    return { ...draft, as2_record: { ...as2Record, info: { ...as2Record.info, mdn }, stages } };
  };
  let receiptMade: Promise<ReceiptPart> | undefined;
  const receiptPart = () => (receiptMade ??= opened.finishReceipt(refusedLater));
  let acceptance: Acceptance;
  try {
    acceptance = await acceptHanding(deps.handoff, deps.core, {
      draft,
      finish: async () => withReceipt(await receiptPart()),
      routable: cemDone === null,
      document: opened.document,
    });
  } catch (error) {
    // The statement may have committed with only its answer lost: the stages stay until the
    // database can say (uncertain-stages.ts). The partner, answered 503, sends the message again.
    if (isDatabaseAway(error)) deps.uncertain.keep(id);
    throw error;
  }
  void deps.uncertain.settle();
  const { receipt } = await receiptPart();
  deps.holdBack?.tell(acceptance.queued);
  countReceived(deps.core.metrics, {
    partner: context.found ? context.partner : undefined,
    outcome,
    duplicate: acceptance.duplicate,
    receipt: receipt ? (asyncAddress ? 'async' : 'sync') : null,
  });
  if (acceptance.duplicate) {
    // Found out in the acceptance's transaction (no lookup before every message); what was
    // stored for this copy goes, and the partner gets the receipt it had the first time. Unless
    // the earlier message is this one: a batch whose answer was lost, tried again item by item
    // (protocol/batcher.ts), finds its own message committed, and these stages are its document.
    if (acceptance.message_id !== id) await deps.store.removeMessage(id);
    return answerDuplicate(
      deps.store,
      acceptance.message_id,
      acceptance.receipt_stored === true ? (acceptance.receipt ?? null) : undefined,
      { wantsReceipt, asyncAddress },
    );
  }
  if (!receipt) return plain(200, refusal ? `Refused: ${outcome}` : 'Received');
  if (asyncAddress)
    return {
      ...plain(200, 'Received; the receipt follows'),
      asyncReceipt: { address: asyncAddress, receipt, messageId: acceptance.message_id },
    };
  return { status: 200, headers: receipt.headers, body: receipt.body };
}

/**
 * The acceptance, with the document handed first to the targets of this process that take it
 * (actors/shared/handoff-giver.ts): their deliveries are stored as delivered, and their files
 * named before the receipt goes. A refused message, a certificate exchange and a message nothing
 * can take are accepted as before, their deliveries queued. `draft`: the message without its
 * receipt, which `finish` makes and adds. `document`: the document in memory, when its stage is
 * kept deflated (open-message.ts); it is moved to the target, not used after.
 */
async function acceptHanding(
  giver: HandoffGiver | undefined,
  core: SourceCore,
  {
    draft,
    finish,
    routable,
    document,
  }: {
    draft: OfferedMessage;
    finish: () => Promise<OfferedMessage>;
    routable: boolean;
    document: Uint8Array | undefined;
  },
): Promise<Acceptance> {
  const way =
    giver && routable && draft.refusal === undefined && draft.payload.stage === 'unpacked'
      ? giver.wayOf(draft)
      : null;
  if (!giver || !way) return core.accept(await finish());
  // The question is out to the targets once `give` is called (HandoffClient.ask posts it), and a
  // message opened on this thread has its receipt signed while they answer: one after the other,
  // the two were a sixth of a message's time at concurrency 1.
  const giving = giver.give(way, draft, draft.payload, document);
  let offered: OfferedMessage;
  try {
    offered = await finish();
  } catch (error) {
    await giver.settle(await giving, null);
    throw error;
  }
  const handing = await giving;
  let acceptance: Acceptance | undefined;
  try {
    acceptance = await core.accept(handing.offered ? { ...offered, handed: handing.offered } : offered);
    return acceptance;
  } finally {
    await giver.settle(handing, acceptance);
  }
}

/** `kept`: the earlier receipt inline (base64), null when it is in the store, undefined when none. */
async function answerDuplicate(
  store: PayloadStore,
  earlierId: string,
  kept: string | null | undefined,
  asked: { wantsReceipt: boolean; asyncAddress: string | undefined },
): Promise<Answer> {
  if (!asked.wantsReceipt || kept === undefined) return plain(200, 'Duplicate message; already processed');
  const stored =
    kept !== null
      ? inlineBytes(kept)
      : await readAll(await store.open({ messageId: earlierId, stage: 'receipt' }));
  const receipt = { ...splitEntity(stored), signed: false };
  if (asked.asyncAddress)
    return {
      ...plain(200, 'Duplicate; receipt follows'),
      asyncReceipt: { address: asked.asyncAddress, receipt, messageId: earlierId },
    };
  return { status: 200, headers: receipt.headers, body: receipt.body };
}

/** The CEM message as it crosses to the core: certificates in base64 (pool results arrive as Uint8Arrays). */
function cemWire(cem: CemMessage): CemReceivedRequest['cem'] {
  if (cem.kind === 'response') return cem;
  return {
    ...cem,
    trustRequests: cem.trustRequests.map((t) => ({
      ...t,
      certificate: Buffer.from(
        t.certificate.buffer,
        t.certificate.byteOffset,
        t.certificate.byteLength,
      ).toString('base64'),
    })),
  };
}

/** The AS2 headers worth showing (docs/api/messages.md protocols.as2). */
function as2Headers(headers: IncomingHttpHeaders): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of [
    'as2-version',
    'as2-from',
    'as2-to',
    'message-id',
    'subject',
    'content-type',
    'content-disposition',
    'disposition-notification-to',
    'disposition-notification-options',
    'receipt-delivery-option',
    'user-agent',
  ]) {
    const value = headerValue(headers, name);
    if (value !== undefined) shown[name] = value.slice(0, 1024);
  }
  return shown;
}

/** AS2-From, AS2-To and Message-ID, or the 400 for a message without usable ones. */
function identify(
  incoming: Incoming | StoredIncoming,
): Answer | { as2From: string; as2To: string; originalMessageId: string } {
  const h = (name: string) => headerValue(incoming.headers, name);
  const as2From = as2Name(h('as2-from'));
  const as2To = as2Name(h('as2-to'));
  const originalMessageId = h('message-id')?.trim();
  if (!as2From || !as2To || !originalMessageId)
    return plain(400, 'An AS2 message needs AS2-From, AS2-To and Message-ID headers');
  if ([as2From, as2To, originalMessageId].some((v) => v.length > maxIdLength || hasControl(v)))
    return plain(400, 'AS2-From, AS2-To or Message-ID is too long or holds control characters');
  return { as2From, as2To, originalMessageId };
}

/** Control characters (NUL, line breaks…) have no place in AS2 names or Message-IDs. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++)
    if (text.charCodeAt(i) < 0x20 || text.charCodeAt(i) === 0x7f) return true;
  return false;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
