/**
 * The CPU part of receiving an AS2 message: unpacking it with the partner's keys, building
 * the receipt and keeping both (`unpacked`, `receipt`: small ones inline, storage/payloads/inline.ts).
 * A function of plain data, so the receiver runs it in a worker pool (open-pool.ts); the
 * document is written where it was made, so a large one never travels back between threads.
 */
import type { As2InboundContext } from '../../protocol/as2-protocol.js';
import {
  DispositionError,
  formatDisposition,
  parseDispositionNotificationOptions,
  processed,
  processedWithError,
  unpackIncoming,
  type Disposition,
  type Mic,
  type UnpackedMessage,
  type UnpackOptions,
} from '../as2/index.js';
import type { DeflatedDocument, PayloadStore } from '../../storage/payloads/store.js';
import { keepBytes, type KeptStage } from '../../storage/payloads/inline.js';
import { entityBytes } from '../as2-shared/headers.js';
import { openingMaterialOf } from './opening-material.js';
import { describeUnopened, describeUnpacked } from './describe.js';
import { makeReceipt, type Receipt } from './receipt.js';
import { defaultFileName, documentName } from './default-file-name.js';
import { unpackStored } from './open-stored.js';
import { checkedCertificates } from './refusal-certificates.js';
import { CemFormatError, isCemContentType, readCem, type CemMessage } from '../as2/cem/index.js';
import { maxHeadBytes } from '../../edi/envelope-reader.js';
import { limits } from '../../limits/limits.js';

export interface OpenTask {
  /** The message the stages are stored under. */
  messageId: string;
  /** Null when the body is in the `received` stage already (a large one, read-body.ts). */
  body: Uint8Array | null;
  receivedBytes: number;
  headers: Record<string, string | string[] | undefined>;
  context: As2InboundContext;
  maxPayloadBytes: number;
  as2From: string;
  as2To: string;
  originalMessageId: string;
  /** Present when the partner asked for a receipt. */
  receipt: { identification: string; options: string | undefined } | null;
}

export interface OpenResult {
  /** The business document kept as `unpacked`; null when the message was refused. */
  payload: KeptStage | null;
  /**
   * The document's first `maxHeadBytes` (a copy), when it was in memory here and went to the store
   * rather than inline: the receiver reads its EDI envelope from them instead of reading the
   * stored file back (0.34 of the 1.5 ms the envelope cost a 1 MiB message, `edi-envelope`).
   */
  payloadHead?: Uint8Array;
  /**
   * The whole document, when it was in memory here and went to the store deflated (as its partner
   * compressed it): read and handed on from memory instead of inflated from the store again.
   */
  document?: Uint8Array;
  /** The receipt kept as `receipt`. */
  receiptStage: KeptStage | null;
  fileName: string;
  /** What protected the message, for protocols.as2. */
  description: Record<string, unknown>;
  /** Null when processed; else why not, and the disposition as the receipt words it. */
  refusal: { disposition: string; text: string } | null;
  /** `processed`, or `processed/error: decryption-failed` as the status and history say it. */
  outcome: string;
  receipt: Receipt | null;
  /** A certificate exchange message read from the document; the core stores it (receive.ts). */
  cem: CemMessage | null;
}

/** The receipt of a message opened, and its `receipt` stage kept. */
export interface ReceiptPart {
  receipt: Receipt | null;
  receiptStage: KeptStage | null;
}

/** A message opened, its document kept, and its receipt still to make (`finishReceipt`). */
export type OpenedDocument = Omit<OpenResult, keyof ReceiptPart> & {
  /**
   * Signs the receipt (when the partner asked for one) and keeps it: an RSA private-key operation.
   * Left to the caller, which makes it while its document is being handed to a target
   * (receive.ts); called once. `refusedLater`: the message, opened and found processed, was
   * refused after all (the core refused its certificate exchange request); the receipt says so.
   */
  finishReceipt(refusedLater?: Disposition): Promise<ReceiptPart>;
};

/**
 * How pier refuses a certificate exchange message, whether it cannot be read or the core refuses
 * what it asks (a certificate with a trusted one's issuer and serial number but another key): the
 * partner learns from the receipt that nothing was taken.
 */
export const cemRefused: Disposition = processedWithError('unexpected-processing-error');

/** `processed/Error: decryption-failed`, as the status and history say it: the disposition without its modes. */
export const outcomeOf = (disposition: Disposition): string =>
  formatDisposition(disposition).replace(/^[^;]*;\s*/, '');

/**
 * The receipt of `task` with this disposition, made and kept as `receipt`; none when the partner
 * asked for none. A refusal's receipt carries no MIC when the document was not taken (`mic` null).
 */
export async function receiptOf(
  task: OpenTask,
  store: PayloadStore,
  disposition: Disposition,
  mic: Mic | null,
): Promise<ReceiptPart> {
  if (!task.receipt) return { receipt: null, receiptStage: null };
  const { context } = task;
  const receipt = makeReceipt({
    identification: task.receipt.identification,
    as2From: task.as2From,
    as2To: task.as2To,
    originalMessageId: task.originalMessageId,
    disposition,
    mic,
    options: parseDispositionNotificationOptions(task.receipt.options),
    signer: openingMaterialOf(context).signer,
    modernOnly: context.found && context.as2bis,
    text: disposition.modifier
      ? `The message ${task.originalMessageId} could not be processed: ${outcomeOf(disposition)}.`
      : `The message ${task.originalMessageId} was received and processed.`,
  });
  const receiptRef = { messageId: task.messageId, stage: 'receipt' as const };
  return {
    receipt,
    receiptStage: await keepBytes(store, receiptRef, entityBytes(receipt.headers, receipt.body)),
  };
}

/** Opens the message and makes its receipt: what a pool thread does with a task. */
export async function openMessage(task: OpenTask, store: PayloadStore): Promise<OpenResult> {
  const { payload, finishReceipt, ...opened } = await openParts(task, store);
  // Signed while a large document is written (the store's writes run in libuv's threads).
  const receiptPart = await finishReceipt();
  return { ...opened, payload: await payload, ...receiptPart };
}

/** Opens the message and keeps its document; the receipt is made when `finishReceipt` is called. */
export async function openDocument(task: OpenTask, store: PayloadStore): Promise<OpenedDocument> {
  const { payload, ...opened } = await openParts(task, store);
  return { ...opened, payload: await payload };
}

/** The message unpacked, its document being kept (`payload`), its receipt not made yet. */
type OpenParts = Omit<OpenedDocument, 'payload'> & { payload: Promise<KeptStage | null> };

async function openParts(task: OpenTask, store: PayloadStore): Promise<OpenParts> {
  const { context } = task;
  let unpacked: UnpackedMessage | null = null;
  /** Bytes of `unpacked` when the large path stored it already. */
  let storedPayloadBytes: number | null = null;
  let refusal: { disposition: Disposition; text: string } | null = null;
  if (!context.found)
    refusal = { disposition: processedWithError('unknown-trading-partner'), text: context.problem };
  else {
    try {
      const material = openingMaterialOf(context);
      const options: UnpackOptions = {
        decryptionKeys: material.decryptionKeys,
        verificationCerts: material.verificationCerts,
        partnerCertificates: material.partnerCertificates,
        requireSigned: context.require_signed,
        requireEncrypted: context.require_encrypted,
        requireModern: context.require_modern,
        maxPayloadBytes: task.maxPayloadBytes,
      };
      const headers = task.headers as Record<string, string>;
      if (task.body) {
        const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
        unpacked = unpackIncoming(body, headers, {
          ...options,
          keepInnermostCompressed: store.putDeflated !== undefined,
        });
      } else
        ({ unpacked, storedPayloadBytes } = await unpackStored(
          store,
          { messageId: task.messageId, bytes: task.receivedBytes },
          headers,
          options,
        ));
    } catch (error) {
      if (!(error instanceof DispositionError)) throw error;
      refusal = {
        disposition: error.disposition,
        text: error.message + checkedCertificates(error.modifier, context),
      };
    }
  }
  // A certificate exchange message is read whole before the receipt is made, so a malformed
  // one is refused in the receipt, with what is wrong, and nothing of it is stored.
  let cem: CemMessage | null = null;
  if (unpacked && isCemContentType(unpacked.contentType)) {
    try {
      // Only the large path stores the document while opening it; no CEM message is that large.
      if (storedPayloadBytes !== null)
        throw new CemFormatError(`A CEM message of ${storedPayloadBytes} bytes is larger than pier takes`);
      cem = readCem(unpacked.contentType, unpacked.payload);
    } catch (error) {
      if (!(error instanceof CemFormatError)) throw error;
      refusal = { disposition: cemRefused, text: error.message };
      unpacked = null;
      storedPayloadBytes = null;
    }
  }
  const disposition = refusal ? refusal.disposition : processed;
  const outcome = outcomeOf(disposition);
  const unpackedRef = { messageId: task.messageId, stage: 'unpacked' as const };
  const deflated = unpacked && storedPayloadBytes === null ? deflatedForm(store, unpacked) : null;
  // Started before the receipt is made, so a large document's write overlaps its signing.
  const payload: Promise<KeptStage | null> = unpacked
    ? storedPayloadBytes !== null
      ? Promise.resolve({ size_bytes: storedPayloadBytes })
      : deflated
        ? store.putDeflated!(unpackedRef, deflated).then((bytes) => ({ size_bytes: bytes }))
        : keepBytes(store, unpackedRef, unpacked.payload)
    : Promise.resolve(null);
  payload.catch(() => {}); // awaited by the caller; a failure is reported there
  const finishReceipt = (refusedLater?: Disposition): Promise<ReceiptPart> =>
    refusedLater
      ? receiptOf(task, store, refusedLater, null)
      : receiptOf(task, store, disposition, unpacked?.mic ?? null);
  // Kept in the store from memory here (keepBytes): not inline, not stored while it was unpacked.
  const storedFromMemory =
    unpacked !== null &&
    storedPayloadBytes === null &&
    deflated === null &&
    unpacked.payload.length > limits.inlineMaxBytes;
  return {
    payload,
    finishReceipt,
    // A copy with a buffer of its own: a view would take the whole document along to the receiver.
    ...(storedFromMemory ? { payloadHead: new Uint8Array(unpacked!.payload.subarray(0, maxHeadBytes)) } : {}),
    // Kept deflated: the inflated document goes to the receiver (moved, open-worker.ts), which reads
    // its envelope and hands it to a target, so nothing inflates the stored stage again meanwhile.
    ...(deflated ? { document: unpacked!.payload } : {}),
    fileName:
      documentName(unpacked?.filename) ??
      defaultFileName(task.as2From, task.originalMessageId, unpacked?.contentType ?? ''),
    description: unpacked ? describeUnpacked(unpacked) : describeUnopened(),
    refusal: refusal ? { disposition: formatDisposition(disposition), text: refusal.text } : null,
    outcome,
    cem,
  };
}

/**
 * The document as its partner compressed it, when the store keeps stages so and that is less
 * than half the document (a MiB of EDI is a few KiB: one write of them instead of the page cache
 * filled with the whole); null when its bytes are kept (inline when small, else in the store).
 */
function deflatedForm(store: PayloadStore, unpacked: UnpackedMessage): DeflatedDocument | null {
  const { payload, compressedDocument: compressed } = unpacked;
  if (payload.length <= limits.inlineMaxBytes || !compressed || !store.putDeflated) return null;
  const compressedBytes = compressed.chunks.reduce((n, chunk) => n + chunk.length, 0);
  return compressedBytes * 2 <= payload.length ? compressed : null;
}
