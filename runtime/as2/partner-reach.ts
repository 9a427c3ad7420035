/**
 * What a connection check needs of a partner's AS2 profile: its endpoint, the certificates
 * it refers to (with their validity), the TLS trust and client certificate, and the HTTP
 * authentication and headers the sender would send. Secrets stay inside the process.
 */
import type { As2OutboundContext } from '../../protocol/as2-protocol.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { pgArray, type Tx } from '../../flow/tx.js';
import { materials, pick, refsOf, remoteSelect, type RemoteRow } from './profiles.js';

export interface PartnerReach {
  partner: string;
  endpoint: string;
  certificates: { field: string; id: number; subject: string; not_before: Date; not_after: Date }[];
  tls: Pick<As2OutboundContext, 'tls_trusted' | 'tls_verify' | 'tls_client'>;
  headers: Record<string, string>;
}

/** Undefined when the partner has no AS2 profile. */
export async function partnerReach(
  tx: Tx,
  secrets: SecretBox,
  partnerId: number,
): Promise<PartnerReach | undefined> {
  const [remote] = await tx.all<RemoteRow>(`${remoteSelect} where r.partner_id = ?`, [partnerId]);
  if (!remote) return undefined;
  const refs = await refsOf(tx, 'business_partner_id', partnerId);
  const ids = [...refs.values()].flat();
  const rows =
    ids.length === 0
      ? []
      : await tx.all<{ id: number; subject: string; not_before: Date; not_after: Date }>(
          `select id, subject, not_before, not_after from certificate where id = any(?::int[])`,
          [pgArray(ids)],
        );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const certificates = [...refs.entries()].flatMap(([field, list]) =>
    list
      .map((id) => byId.get(id))
      .filter((r) => r !== undefined)
      .map((r) => ({
        field,
        id: r.id,
        subject: r.subject,
        not_before: new Date(r.not_before),
        not_after: new Date(r.not_after),
      })),
  );
  const own = await materials(tx, secrets, refs.get('tls_client_certificate_id') ?? [], true);
  const theirs = await materials(tx, secrets, refs.get('tls_trusted_certificate_ids') ?? [], false);
  const headers: Record<string, string> = {};
  if (remote.http_basic_user !== '') {
    const password = remote.http_basic_password ? secrets.openText(remote.http_basic_password) : '';
    const pair = `${remote.http_basic_user}:${password}`;
    headers.Authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
  }
  if (remote.http_headers) {
    const extra = JSON.parse(secrets.openText(remote.http_headers)) as { name: string; value: string }[];
    for (const h of extra) headers[h.name] = h.value;
  }
  return {
    partner: remote.name,
    endpoint: remote.endpoint,
    certificates,
    tls: {
      tls_verify: remote.tls_verify,
      tls_trusted: pick(theirs, refs.get('tls_trusted_certificate_ids')).map((m) => m.certificate_pem),
      tls_client: pick(own, refs.get('tls_client_certificate_id'))[0] ?? null,
    },
    headers,
  };
}
