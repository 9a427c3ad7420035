/**
 * Standard Webhooks signatures (standardwebhooks.com): HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>` with the base64 key after `whsec_`, sent as
 * `webhook-signature: v1,<base64>`. The id stays the same across retries, so a receiver can
 * drop repeats; the timestamp is the attempt's. During a rotation's overlap each secret
 * signs, and the signatures are sent space-separated (`v1,<a> v1,<b>`): a receiver accepts
 * the body when any of them verifies with the secret it knows.
 */
import { createHmac } from 'node:crypto';

export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  at: Date,
  body: string,
): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const headers: Record<string, string> = { 'webhook-id': id, 'webhook-timestamp': timestamp };
  if (secrets.length > 0) {
    const signed = `${id}.${timestamp}.${body}`;
    headers['webhook-signature'] = secrets
      .map((secret) => {
        const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
        return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
      })
      .join(' ');
  }
  return headers;
}
