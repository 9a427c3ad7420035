/**
 * Sending one delivery by AS2: the partner's profile from the core, the request built and
 * posted, the synchronous receipt judged, or the delivery left awaiting its asynchronous
 * receipt. HTTP failures are retryable as for the HTTP poster; a refused receipt is not.
 */
import http from 'node:http';
import type { Readable } from 'node:stream';
import { As2OutboundResponse, type As2OutboundContext } from '../../runtime/channels/as2-protocol.js';
import type { ClaimedDelivery, DeliveryOutcome } from '../../runtime/channels/core-protocol.js';
import type { CoreClient } from '../../runtime/worker-host/host.js';
import { PayloadMissing, type PayloadStore } from '../../storage/payloads/store.js';
import { newMessageId } from '../as2-shared/headers.js';
import { judgeReceipt } from '../as2-shared/judge-receipt.js';
import { retryableStatus } from '../http-poster/post.js';
import { buildRequest, ProfileProblem } from './build.js';
import type { As2SenderSettings } from './config.js';
import { postAs2 } from './post.js';

export class As2Sender {
  readonly #agent: http.Agent;

  constructor(
    private readonly settings: As2SenderSettings,
    private readonly store: PayloadStore,
    private readonly core: CoreClient,
    private readonly userAgent: string,
  ) {
    this.#agent = new http.Agent({ keepAlive: true, maxSockets: settings.max_concurrent_deliveries });
  }

  async deliver(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const m = delivery.message;
    const answer = As2OutboundResponse.parse(
      await this.core.ask({ type: 'as2_outbound', message_id: m.id, organization: m.from, partner: m.to }),
    );
    const context = answer.context;
    if (!context.found) return { ok: false, retryable: false, error: `Not sent: ${context.problem}` };
    let payload: Buffer;
    try {
      payload = await readAll(await this.store.open({ messageId: m.id, stage: delivery.payload.stage }));
    } catch (error) {
      if (error instanceof PayloadMissing) return { ok: false, retryable: false, error: error.message };
      throw error;
    }
    const messageId = context.earlier_message_id ?? newMessageId(context.organization_as2id);
    let built;
    try {
      built = buildRequest(
        context,
        payload,
        m.file_name,
        messageId,
        this.userAgent,
        this.settings.compression_order,
      );
    } catch (error) {
      if (error instanceof ProfileProblem)
        return { ok: false, retryable: false, error: `Not sent: ${error.message}` };
      throw error;
    }
    const info = {
      headers: Object.fromEntries(
        Object.entries(built.headers).filter(
          ([name]) => name !== 'Authorization' && !context.http_headers.some((h) => h.name === name),
        ),
      ),
      mic: built.mic,
      mic_algorithm: built.packed.mic.algorithm,
      signed: context.signing_algorithm !== 'none',
      signature: context.signing_algorithm === 'none' ? null : { algorithm: context.signing_algorithm },
      encrypted: context.encryption_algorithm !== 'none',
      encryption:
        context.encryption_algorithm === 'none' ? null : { algorithm: context.encryption_algorithm },
      compressed: context.compression,
      compression: context.compression ? this.settings.compression_order : null,
      mdn_mode: context.mdn_mode,
      mdn_signed: context.mdn_signed,
    };
    const record = (extra: Partial<Parameters<CoreClient['ask']>[0]> & Record<string, unknown> = {}) =>
      this.core.ask({
        type: 'as2_record',
        message_id: m.id,
        direction: 'outbound',
        as2_message_id: messageId,
        as2_from: context.organization_as2id,
        as2_to: context.partner_as2id,
        processed: null,
        info,
        stages: [],
        ...extra,
      } as Parameters<CoreClient['ask']>[0]);
    // Recorded before posting, so an asynchronous receipt finds the message however fast it comes.
    await record(
      context.mdn_mode === 'async'
        ? { awaiting: { delivery_id: delivery.delivery_id, hours: context.receipt_timeout_hours } }
        : {},
    );
    let url: URL;
    try {
      url = new URL(context.endpoint);
    } catch {
      return {
        ok: false,
        retryable: false,
        error: `Not sent: the endpoint ${context.endpoint} is not an address`,
      };
    }
    let response;
    try {
      response = await postAs2(
        url,
        built.headers,
        built.packed.bodyChunks,
        context,
        this.settings.timeout_seconds * 1000,
        this.#agent,
      );
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      return { ok: false, retryable: true, error: `${e.code ?? 'Error'}: ${e.message}` };
    }
    const line = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    if (response.status < 200 || response.status >= 300)
      return {
        ok: false,
        retryable: retryableStatus(response.status),
        error: `${url.host} answered ${line}`,
      };
    if (context.mdn_mode === 'none') return { ok: true, detail: `Sent as ${messageId}: ${line}` };
    if (context.mdn_mode === 'async')
      return { ok: true, awaiting_ack: true, detail: `Sent as ${messageId}: ${line}; awaiting the receipt` };
    return this.#judgeSync(context, response, info, record, messageId);
  }

  async #judgeSync(
    context: As2OutboundContext,
    response: Awaited<ReturnType<typeof postAs2>>,
    info: Record<string, unknown>,
    record: (extra: Record<string, unknown>) => Promise<unknown>,
    messageId: string,
  ): Promise<DeliveryOutcome> {
    if (response.body.length === 0)
      return {
        ok: false,
        retryable: false,
        error: `Sent as ${messageId}, but the answer carried no receipt`,
      };
    const verdict = judgeReceipt(response.body, response.headers, context.verification, info);
    await record({
      processed: verdict.ok,
      info: { ...info, mdn: verdict.info },
      history: { kind: verdict.ok ? 'mdn_received' : 'mdn_refused', text: verdict.text },
    });
    if (verdict.ok) return { ok: true, detail: `Sent as ${messageId}. ${verdict.text}`.slice(0, 2048) };
    return { ok: false, retryable: false, error: verdict.text.slice(0, 2048) };
  }

  close(): void {
    this.#agent.destroy();
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
