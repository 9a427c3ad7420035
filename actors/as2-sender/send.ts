/**
 * Sending one delivery by AS2: the partner's profile (kept for a few seconds), the request
 * built and posted, the synchronous receipt judged, or the delivery left awaiting its
 * asynchronous receipt. What AS2 did travels with the result, so the core stores it in the
 * transaction that records the delivery. HTTP failures are retryable as for the HTTP poster;
 * a refused receipt is not. A document from 1 MiB on is never read into memory: it is packed
 * from a temporary file and streamed to the partner (see as2/stream/).
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { As2OutboundContext, As2Record } from '../../protocol/as2-protocol.js';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import { PayloadMissing, type PayloadRef, type PayloadStore } from '../../storage/payloads/store.js';
import { inlineBytes, keepBytes, type KeptStage } from '../../storage/payloads/inline.js';
import { streamFromBytes } from '../as2/stream/pack-streamed.js';
import { fileRange, type FileRange } from '../as2/stream/source.js';
import { TempFiles } from '../as2/stream/temp-files.js';
import { entityBytes, messageIdFor } from '../as2-shared/headers.js';
import { countReceipt, judgeReceipt } from '../as2-shared/judge-receipt.js';
import { retryableStatus } from '../http-poster/post.js';
import { proxiedAnswer, proxyFailure } from '../shared/proxy.js';
import {
  buildRequest,
  buildStreamedRequest,
  ProfileProblem,
  type BuiltRequest,
  type RequestParts,
} from './build.js';
import type { As2SenderSettings } from './config.js';
import { OutboundContexts } from './contexts.js';
import { PartnerAgents } from './agents.js';
import { postAs2, type PostAnswer } from './post.js';
import { cemEntityOf } from '../as2/cem/entity.js';
import { limits } from '../../limits/limits.js';

/** Headers of a synchronous receipt kept with it. */
const receiptHeaders = [
  'AS2-Version',
  'AS2-From',
  'AS2-To',
  'Message-ID',
  'Date',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
];

export class As2Sender {
  readonly #agents: PartnerAgents;
  readonly #contexts: OutboundContexts;

  constructor(
    private readonly settings: As2SenderSettings,
    private readonly store: PayloadStore,
    private readonly core: CoreClient,
    private readonly userAgent: string,
    proxyPassword?: string,
  ) {
    this.#agents = new PartnerAgents(settings.max_concurrent_deliveries, {
      settings,
      password: proxyPassword,
    });
    this.#contexts = new OutboundContexts(core);
  }

  async deliver(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const m = delivery.message;
    const context = await this.#contexts.get(m.from, m.to);
    if (!context.found) return { ok: false, retryable: false, error: `Not sent: ${context.problem}` };
    const messageId = messageIdFor(m.id, context.organization_as2id);
    /** What is known of this attempt so far, for the message's protocols.as2. */
    const record = (info: Record<string, unknown>, extra: Partial<As2Record> = {}): As2Record => ({
      direction: 'outbound',
      as2_message_id: messageId,
      as2_from: context.organization_as2id,
      as2_to: context.partner_as2id,
      processed: null,
      info,
      stages: [],
      ...extra,
    });
    const notSent = (error: string, prefix = 'Not sent: '): DeliveryOutcome => ({
      ok: false,
      retryable: false,
      error: `${prefix}${error}`,
      as2_record: record({ error }),
    });
    let url: URL;
    try {
      url = new URL(context.endpoint);
    } catch {
      return notSent(`the endpoint ${context.endpoint} is not an address`);
    }
    const parts: RequestParts = {
      context,
      fileName: m.file_name,
      messageId,
      userAgent: this.userAgent,
      compressionOrder: this.settings.compression_order,
      interop: context.interop,
    };
    const ref = { messageId: m.id, stage: delivery.payload.stage };
    // A large document is packed from a file through temporary files, removed once it is sent.
    const temp = delivery.payload.size_bytes >= streamFromBytes ? await TempFiles.create() : null;
    // Through a proxy, a failure to connect or a refusal names the proxy, not only the partner.
    const proxy = this.#agents.proxyFor(url);
    let built: BuiltRequest;
    let info: Record<string, unknown>;
    let response: PostAnswer;
    try {
      try {
        if (temp) built = await buildStreamedRequest(parts, await this.#spill(ref, temp), temp);
        else {
          const document =
            delivery.payload.content !== undefined
              ? inlineBytes(delivery.payload.content)
              : await readAll(await this.store.open(ref), delivery.payload.size_bytes);
          // A certificate exchange message pier made is sent with its own Content-Type, and
          // binary: a multipart entity may not be base64-encoded as a whole (RFC 2045 §6.4).
          const cem = cemEntityOf(document);
          built = cem
            ? buildRequest(
                {
                  ...parts,
                  contentType: cem.contentType,
                  interop: { ...context.interop, transferEncoding: 'binary' },
                },
                cem.body,
              )
            : buildRequest(parts, document);
        }
      } catch (error) {
        if (error instanceof PayloadMissing) return notSent(error.message, '');
        if (error instanceof ProfileProblem) {
          // Asked again next time, so a fixed profile counts at once (say, for a redeliver).
          this.#contexts.forget(m.from, m.to);
          return notSent(error.message);
        }
        throw error;
      }
      info = this.#describe(context, built);
      if (context.mdn_mode === 'async') {
        // Stored before posting, so an asynchronous receipt finds the message however fast it comes.
        await this.core.ask({
          type: 'as2_record',
          message_id: m.id,
          ...record(info, {
            awaiting: {
              delivery_id: delivery.delivery_id,
              hours: context.receipt_timeout_hours,
              alert_minutes: this.settings.receipt_alert_minutes,
            },
          }),
        });
      }
      try {
        response = await postAs2(
          url,
          built.headers,
          built.body,
          this.settings.timeout_seconds * 1000,
          this.#agents.for(url, context),
        );
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        return {
          ok: false,
          retryable: true,
          error: proxy ? proxyFailure(proxy, url, e) : `${e.code ?? 'Error'}: ${e.message}`,
          as2_record: record(info),
        };
      }
    } finally {
      await temp?.remove();
    }
    const line = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    if (response.status < 200 || response.status >= 300)
      return {
        ok: false,
        retryable: retryableStatus(response.status),
        error: proxy ? proxiedAnswer(proxy, url, response) : `${url.host} answered ${line}`,
        as2_record: record(info),
      };
    if (context.mdn_mode === 'none')
      return { ok: true, detail: `Sent as ${messageId}: ${line}`, as2_record: record(info) };
    // The record with the delivery waiting was stored before posting; leave it as it is.
    if (context.mdn_mode === 'async')
      return { ok: true, awaiting_ack: true, detail: `Sent as ${messageId}: ${line}; awaiting the receipt` };
    if (response.body.length === 0)
      return {
        ok: false,
        retryable: false,
        error: `Sent as ${messageId}, but the answer carried no receipt`,
        as2_record: record(info),
      };
    const verdict = judgeReceipt(response.body, response.headers, context.verification, info);
    countReceipt(this.core.metrics, verdict);
    const kept = await this.#keepReceipt(m.id, response);
    const judged = record(
      { ...info, mdn: verdict.info },
      {
        processed: verdict.ok,
        stages: kept === null ? [] : [{ stage: 'receipt', ...kept }],
        history: { kind: verdict.ok ? 'mdn_received' : 'mdn_refused', text: verdict.text.slice(0, 2048) },
      },
    );
    if (verdict.ok)
      return { ok: true, detail: `Sent as ${messageId}. ${verdict.text}`.slice(0, 2048), as2_record: judged };
    return { ok: false, retryable: false, error: verdict.text.slice(0, 2048), as2_record: judged };
  }

  /**
   * The synchronous receipt as it travelled (its AS2 and MIME headers and body), as the
   * message's `receipt` stage, so it can be downloaded like an asynchronous one. A stage is
   * written once: after a redelivery the first receipt stays. Null when it was not stored.
   */
  async #keepReceipt(messageId: string, response: PostAnswer): Promise<KeptStage | null> {
    const kept: Record<string, string> = {};
    for (const name of receiptHeaders) {
      const value = response.headers[name.toLowerCase()];
      if (value !== undefined) kept[name] = value;
    }
    try {
      return await keepBytes(this.store, { messageId, stage: 'receipt' }, entityBytes(kept, response.body));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
      throw error;
    }
  }

  /** protocols.as2 of the message: the headers sent (no credentials) and what protected it. */
  #describe(context: As2OutboundContext, built: BuiltRequest): Record<string, unknown> {
    const secret = (name: string) =>
      name === 'Authorization' || context.http_headers.some((h) => h.name === name);
    return {
      headers: Object.fromEntries(Object.entries(built.headers).filter(([name]) => !secret(name))),
      mic: built.mic,
      mic_algorithm: built.micAlgorithm,
      signed: context.signing_algorithm !== 'none',
      signature: context.signing_algorithm === 'none' ? null : { algorithm: context.signing_algorithm },
      encrypted: context.encryption_algorithm !== 'none',
      encryption:
        context.encryption_algorithm === 'none' ? null : { algorithm: context.encryption_algorithm },
      compressed: context.compression,
      compression: context.compression ? this.settings.compression_order : null,
      mdn_mode: context.mdn_mode,
      mdn_signed: context.mdn_signed,
      // Clear what an earlier attempt left (records add to the stored info): the reason it was
      // not sent, and its receipt until this attempt's arrives.
      error: null,
      mdn: null,
    };
  }

  /** The document as a file: the local store's own, else streamed into a temporary one. */
  async #spill(ref: PayloadRef, temp: TempFiles): Promise<FileRange> {
    // A local store's own file is read in place: no copy of a large document (one kept
    // deflated is not the document's bytes, and is inflated into the temporary file).
    const own = this.store.fileOf ? await this.store.fileOf(ref) : null;
    if (own !== null) return fileRange(own, (await stat(own)).size);
    const file = temp.name('document');
    await pipeline(
      await this.store.open(ref),
      createWriteStream(file, { highWaterMark: limits.streamSliceBytes }),
    );
    return fileRange(file, (await stat(file)).size);
  }

  close(): void {
    this.#agents.destroy();
  }
}

/**
 * The payload in one buffer of the size the core recorded, filled as it is read (collecting
 * chunks and joining them would hold a large payload twice). A stage that is not the size
 * recorded is read whole all the same, and its true bytes are sent.
 */
async function readAll(stream: Readable, expected: number): Promise<Buffer> {
  let whole = Buffer.allocUnsafe(expected);
  let filled = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    if (filled + bytes.length > whole.length) {
      const bigger = Buffer.allocUnsafe(Math.max(whole.length * 2, filled + bytes.length));
      whole.copy(bigger, 0, 0, filled);
      whole = bigger;
    }
    bytes.copy(whole, filled);
    filled += bytes.length;
  }
  return whole.subarray(0, filled);
}
