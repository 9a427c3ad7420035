/**
 * Sending one notification: attempts with a timeout each, retried after a growing wait on a
 * network error, a timeout, 408, 429 or 5xx; any other non-2xx answer fails at once (the
 * receiver would refuse it again). Used by the actor and by the API's test notification.
 */
import type { NotificationJob, NotificationOutcome } from '../../protocol/notify-protocol.js';
import {
  signingSecrets,
  type NotificationWebhookSecrets,
  type NotificationWebhookSettings,
} from './config.js';
import { fetch as undiciFetch, ProxyAgent } from 'undici';
import { proxyFor } from '../shared/proxy.js';
import { renderBody } from './render.js';
import { webhookHeaders } from './sign.js';

export interface SendOptions {
  userAgent: string;
  now?: () => Date;
  /** Waits between attempts; tests may shorten them. */
  sleep?: (ms: number) => Promise<void>;
  /** Ends the waiting and the attempt in hand (the actor stops). */
  signal?: AbortSignal;
  /** Told of a failed attempt that will be tried again, before the wait. */
  onRetry?: (attempts: number, error: string) => Promise<void> | void;
}

function retryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Wait before attempt `n + 1` (n ≥ 1), in milliseconds. */
export function retryWait(
  settings: Pick<NotificationWebhookSettings, 'retry_interval' | 'retry_backoff' | 'retry_max_interval'>,
  n: number,
): number {
  const seconds = settings.retry_interval * settings.retry_backoff ** (n - 1);
  return Math.min(seconds, settings.retry_max_interval) * 1000;
}

export const sleeper = (signal?: AbortSignal) => (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Why fetch failed: the system's code (ECONNREFUSED), else the cause's words (a proxy's 407). */
function reason(e: Error & { cause?: { code?: unknown; message?: string } }): string {
  const code = e.cause?.code;
  if (typeof code === 'string' && code !== '' && !code.startsWith('UND_ERR')) return code;
  return e.cause?.message ?? e.message;
}

export async function sendNotification(
  settings: NotificationWebhookSettings,
  secrets: NotificationWebhookSecrets,
  job: NotificationJob,
  options: SendOptions,
): Promise<Omit<NotificationOutcome, 'notification_id' | 'grouped'>> {
  const now = options.now ?? (() => new Date());
  const sleep = options.sleep ?? sleeper(options.signal);
  const url = new URL(secrets.url);
  const body = renderBody(settings.format, job, now());
  const id = `msg_pier_${job.notification_id}`;
  const through = proxyFor(url, settings, secrets.proxy_password);
  // undici's own fetch with its ProxyAgent: a dispatcher of one undici version is not handed
  // to the fetch of another (Node's bundled one).
  const proxy = through ? new ProxyAgent({ uri: through.url.href }) : undefined;
  let error = '';
  for (let attempt = 1; ; attempt++) {
    const at = now();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': options.userAgent,
      ...webhookHeaders(signingSecrets(secrets, at), id, at, body),
    };
    if (settings.basic_username !== '') {
      const pair = `${settings.basic_username}:${secrets.basic_password ?? ''}`;
      headers.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
    }
    for (const h of secrets.headers ?? []) headers[h.name.toLowerCase()] = h.value;
    let again = true;
    try {
      const timeout = AbortSignal.timeout(settings.timeout_seconds * 1000);
      const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
      const request = { method: 'POST', headers, body, signal, redirect: 'manual' } as const;
      const answer = proxy
        ? await undiciFetch(url, { ...request, dispatcher: proxy })
        : await fetch(url, request);
      await answer.body?.cancel().catch(() => {});
      if (answer.status >= 200 && answer.status < 300) {
        await proxy?.close();
        return { ok: true, attempts: attempt };
      }
      // The address is a secret (docs/api/conventions.md#write-only-values): name the host only.
      error = `${url.host} answered HTTP ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}`;
      again = retryable(answer.status);
    } catch (caught) {
      const e = caught as Error & { cause?: { code?: unknown; message?: string } };
      error =
        e.name === 'TimeoutError'
          ? `No answer from ${url.host} within ${settings.timeout_seconds} s`
          : `Could not reach ${url.host}${through ? ` through the proxy ${through.shown}` : ''}: ${reason(e)}`;
    }
    if (!again || attempt >= settings.max_attempts || options.signal?.aborted) {
      await proxy?.close();
      return { ok: false, attempts: attempt, error };
    }
    await options.onRetry?.(attempt, error);
    await sleep(retryWait(settings, attempt));
    // Stopped while waiting: the last attempt's error stands, no aborted attempt is counted.
    if (options.signal?.aborted) {
      await proxy?.close();
      return { ok: false, attempts: attempt, error };
    }
  }
}
