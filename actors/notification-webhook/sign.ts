/**
 * Standard Webhooks signatures (standardwebhooks.com): HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>` with the base64 key after `whsec_`, sent as
 * `webhook-signature: v1,<base64>`. The id stays the same across retries, so a receiver can
 * drop repeats; the timestamp is the attempt's.
 */
import { createHmac } from 'node:crypto';

export function webhookHeaders(
  secret: string | undefined,
  id: string,
  at: Date,
  body: string,
): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': timestamp };
  if (secret) {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    headers['webhook-signature'] = `v1,${mac}`;
  }
  return headers;
}
