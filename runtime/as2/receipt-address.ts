/**
 * Where partners send asynchronous receipts when the organization's profile names no
 * async_mdn_url: pier's own AS2 receiver, at its `public_url`, or at PUBLIC_URL's host with the
 * receiver's scheme, port and path. Derived only when one receiver is meant: the only enabled
 * one, or the only enabled one with a public_url. Otherwise null, and the sender says why.
 */
import type { Tx } from '../../flow/tx.js';

interface ReceiverRow {
  name: string;
  settings: { port?: number; path?: string; tls_certificate_id?: number | null; public_url?: string };
}

export async function derivedReceiptAddress(tx: Tx, publicUrl: string | null): Promise<string | null> {
  const receivers = await tx.all<ReceiverRow>(
    `select name, settings from plugin_config where type = 'as2-receiver' and enabled order by name`,
  );
  const withUrl = receivers.filter((r) => r.settings.public_url);
  const chosen = receivers.length === 1 ? receivers[0] : withUrl.length === 1 ? withUrl[0] : undefined;
  if (!chosen) return null;
  if (chosen.settings.public_url) return chosen.settings.public_url;
  if (!publicUrl) return null;
  const url = new URL(publicUrl);
  url.protocol = chosen.settings.tls_certificate_id ? 'https:' : 'http:';
  url.port = String(chosen.settings.port ?? '');
  url.pathname = chosen.settings.path ?? '/as2';
  url.search = '';
  url.hash = '';
  return url.toString();
}
