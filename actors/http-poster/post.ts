/**
 * Posting one delivery: the payload streamed from the store as the request body. A 2xx
 * answer is delivered; 408, 429, 5xx, a timeout or a network error may pass and are
 * retried; any other answer is a failure that trying again would repeat.
 */
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import { PayloadMissing, type PayloadStore } from '../../storage/payloads/store.js';
import { openKept } from '../../storage/payloads/inline.js';
import { asJson, formattedName, NotTranslatable } from '../shared/delivery-format.js';
import { contentDisposition } from '../shared/content-disposition.js';
import type { HeaderList } from '../shared/fields.js';
import { proxyAgent, proxyFor } from '../shared/proxy.js';
import type { HttpPosterSettings } from './config.js';

export interface PosterSecrets {
  http_basic_password?: string;
  proxy_password?: string;
  http_headers?: HeaderList;
}

export function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export class HttpPoster {
  readonly #agent: http.Agent;
  readonly #url: URL;

  constructor(
    private readonly settings: HttpPosterSettings,
    private readonly secrets: PosterSecrets,
    private readonly store: PayloadStore,
    private readonly userAgent: string,
  ) {
    this.#url = new URL(settings.url);
    const options = { keepAlive: true, maxSockets: settings.max_concurrent_deliveries };
    const proxy = proxyFor(this.#url, settings, secrets.proxy_password);
    if (proxy) this.#agent = proxyAgent(this.#url, proxy, options);
    else this.#agent = this.#url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  }

  headersFor(delivery: ClaimedDelivery): Record<string, string> {
    const m = delivery.message;
    const json = this.settings.format === 'json';
    const headers: Record<string, string> = {
      // The JSON form's length is known only once it is written: it goes chunked.
      'content-type': json ? 'application/json' : this.settings.content_type,
      ...(json ? {} : { 'content-length': String(delivery.payload.size_bytes) }),
      'content-disposition': contentDisposition(formattedName(m.file_name, this.settings.format)),
      'user-agent': this.userAgent,
      'x-pier-message-id': m.id,
      'x-pier-from': m.from,
      'x-pier-to': m.to,
    };
    if (this.settings.http_basic_username !== '') {
      const pair = `${this.settings.http_basic_username}:${this.secrets.http_basic_password ?? ''}`;
      headers.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
    }
    for (const h of this.secrets.http_headers ?? []) headers[h.name.toLowerCase()] = h.value;
    return headers;
  }

  async deliver(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    let body: Readable;
    try {
      const open = () =>
        openKept(
          this.store,
          { messageId: delivery.message.id, stage: delivery.payload.stage },
          delivery.payload.content,
        );
      body = this.settings.format === 'json' ? Readable.from(await asJson(open)) : await open();
    } catch (error) {
      if (error instanceof PayloadMissing || error instanceof NotTranslatable)
        return { ok: false, retryable: false, error: error.message };
      throw error;
    }
    const client = this.#url.protocol === 'https:' ? https : http;
    return new Promise<DeliveryOutcome>((resolve) => {
      const request = client.request(this.#url, {
        method: 'POST',
        agent: this.#agent,
        headers: this.headersFor(delivery),
        timeout: this.settings.timeout_seconds * 1000,
      });
      const fail = (error: string) => {
        body.destroy();
        resolve({ ok: false, retryable: true, error });
      };
      request.on('timeout', () => {
        request.destroy();
        fail(`No answer from ${this.#url.host} within ${this.settings.timeout_seconds} s`);
      });
      request.on('error', (error: NodeJS.ErrnoException) =>
        fail(`${error.code ?? 'Error'}: ${error.message}`),
      );
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        response.resume();
        const line = `HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
        if (status >= 200 && status < 300) resolve({ ok: true, detail: `Posted: ${line}` });
        else
          resolve({
            ok: false,
            retryable: retryableStatus(status),
            error: `${this.#url.host} answered ${line}`,
          });
      });
      body.on('error', (error) => {
        request.destroy();
        fail(`Reading the payload failed: ${error.message}`);
      });
      body.pipe(request);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
