/**
 * Resolving the parties of an AS2 message to their profiles and certificates, for the
 * actors (which never touch the database). Private keys are opened from the secret box here
 * and handed over as PKCS#8 PEM; nothing here logs them.
 */
import { derivedReceiptAddress } from './receipt-address.js';
import type { As2InboundResponse, As2Material, As2OutboundResponse } from '../../protocol/as2-protocol.js';
import { toPem } from '../../pki/certificates/certificate-info.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { pgArray, type Tx } from '../../flow/tx.js';
import { interopOptionsOf, pickInteropFields, type InteropFields } from './interop-fields.js';

interface CertRow {
  id: number;
  der: Buffer;
  private_key: string | null;
  private_key_matches: boolean;
}

type Refs = Map<string, number[]>;

export async function refsOf(tx: Tx, column: 'local_organization_id' | 'business_partner_id', id: number) {
  const rows = await tx.all<{ field: string; certificate_id: number }>(
    `select field, certificate_id from as2_profile_certificate where ${column} = ? order by field, position`,
    [id],
  );
  const refs: Refs = new Map();
  for (const r of rows) refs.set(r.field, [...(refs.get(r.field) ?? []), r.certificate_id]);
  return refs;
}

export async function materials(tx: Tx, secrets: SecretBox, ids: number[], withKeys: boolean) {
  if (ids.length === 0) return new Map<number, As2Material>();
  const rows = await tx.all<CertRow>(
    `select id, der, ${withKeys ? 'private_key' : 'null as private_key'}, private_key_matches
       from certificate where id = any(?::int[])`,
    [pgArray(ids)],
  );
  const found = new Map<number, As2Material>();
  for (const row of rows) {
    const material: As2Material = { certificate_pem: toPem(Buffer.from(row.der)) };
    if (withKeys && row.private_key && row.private_key_matches) {
      // Stored as PKCS#8 DER, so wrapping it is all PEM needs (no key parsing in the core).
      material.private_key_pem = toPem(secrets.open(row.private_key), 'PRIVATE KEY');
    }
    found.set(row.id, material);
  }
  return found;
}

export const pick = (found: Map<number, As2Material>, ids: number[] = []) =>
  ids.map((id) => found.get(id)).filter((m): m is As2Material => m !== undefined);

interface LocalRow {
  organization_id: number;
  name: string;
  as2id: string;
  async_mdn_url: string;
}

export interface RemoteRow extends InteropFields {
  partner_id: number;
  name: string;
  as2id: string;
  endpoint: string;
  signing_algorithm: string;
  encryption_algorithm: string;
  inbound_signature: string;
  inbound_encryption: string;
  inbound_algorithms: string;
  max_message_mib: number | null;
  compression: boolean;
  mdn_mode: 'sync' | 'async' | 'none';
  mdn_signed: boolean;
  receipt_timeout_hours: number;
  http_basic_user: string;
  http_basic_password: string | null;
  http_headers: string | null;
  tls_verify: boolean;
  as2bis: boolean;
}

const localSelect = `select l.organization_id, o.name, l.as2id, l.async_mdn_url
  from as2_local_profile l join organization o on o.id = l.organization_id`;
export const remoteSelect = `select r.*, p.name from as2_remote_profile r join partner p on p.id = r.partner_id`;

/** The receiver's view: AS2-To names one of our organizations, AS2-From one of its partners. */
export async function inboundContext(
  tx: Tx,
  secrets: SecretBox,
  as2To: string,
  as2From: string,
): Promise<As2InboundResponse['context']> {
  const [local] = await tx.all<LocalRow>(`${localSelect} where l.as2id = ?`, [as2To]);
  const [remote] = await tx.all<RemoteRow>(`${remoteSelect} where r.as2id = ?`, [as2From]);
  let signing: As2Material | null = null;
  let localRefs: Refs = new Map();
  if (local) {
    localRefs = await refsOf(tx, 'local_organization_id', local.organization_id);
    const own = await materials(tx, secrets, localRefs.get('signing_certificate_id') ?? [], true);
    signing = pick(own, localRefs.get('signing_certificate_id'))[0] ?? null;
  }
  if (!local) return { found: false, problem: `no organization has the AS2 name ${as2To}`, signing: null };
  if (!remote) return { found: false, problem: `no partner has the AS2 name ${as2From}`, signing };
  const remoteRefs = await refsOf(tx, 'business_partner_id', remote.partner_id);
  const decryptionIds = localRefs.get('decryption_certificate_ids') ?? [];
  const own = await materials(tx, secrets, decryptionIds, true);
  const theirIds = [
    ...(remoteRefs.get('partner_certificate_id') ?? []),
    ...(remoteRefs.get('signature_certificate_ids') ?? []),
  ];
  const theirs = await materials(tx, secrets, theirIds, false);
  return {
    found: true,
    organization: local.name,
    partner: remote.name,
    decryption: pick(own, decryptionIds).filter((m) => m.private_key_pem),
    signing,
    verification: pick(theirs, remoteRefs.get('signature_certificate_ids')).map((m) => m.certificate_pem),
    partner_certificates: [...new Set(pick(theirs, theirIds).map((m) => m.certificate_pem))],
    require_signed: remote.inbound_signature === 'required',
    require_encrypted: remote.inbound_encryption === 'required',
    require_modern: remote.inbound_algorithms === 'modern',
    as2bis: remote.as2bis,
    max_message_bytes: remote.max_message_mib === null ? null : remote.max_message_mib * 1024 * 1024,
  };
}

/** The names of the organizations with an AS2 profile, in order. */
export async function as2OrganizationNames(tx: Tx): Promise<string[]> {
  return (await tx.all<LocalRow>(`${localSelect} order by o.name`)).map((r) => r.name);
}

/** The sender's view of a message from an organization to a partner. */
export async function outboundContext(
  tx: Tx,
  secrets: SecretBox,
  organization: string,
  partner: string,
  /** PUBLIC_URL when it was set, for the derived asynchronous receipt address. */
  publicUrl: string | null = null,
): Promise<As2OutboundResponse['context']> {
  const [local] = await tx.all<LocalRow>(`${localSelect} where o.name = ?`, [organization]);
  if (!local) return { found: false, problem: `organization ${organization} has no AS2 profile` };
  const [remote] = await tx.all<RemoteRow>(`${remoteSelect} where p.name = ?`, [partner]);
  if (!remote) return { found: false, problem: `partner ${partner} has no AS2 profile` };
  const localRefs = await refsOf(tx, 'local_organization_id', local.organization_id);
  const remoteRefs = await refsOf(tx, 'business_partner_id', remote.partner_id);
  // 1-pass ECMQV's static key: one of the organization's decryption certificates (the partner
  // holds them as pier's key agreement certificates) or else its signing certificate.
  const ecmqvIds =
    remote.key_agreement === 'ecmqv'
      ? [
          ...(localRefs.get('decryption_certificate_ids') ?? []),
          ...(localRefs.get('signing_certificate_id') ?? []),
        ]
      : [];
  const own = await materials(
    tx,
    secrets,
    [
      ...(localRefs.get('signing_certificate_id') ?? []),
      ...(remoteRefs.get('tls_client_certificate_id') ?? []),
      ...ecmqvIds,
    ],
    true,
  );
  const theirIds = [
    ...(remoteRefs.get('partner_certificate_id') ?? []),
    ...(remoteRefs.get('signature_certificate_ids') ?? []),
    ...(remoteRefs.get('tls_trusted_certificate_ids') ?? []),
  ];
  const theirs = await materials(tx, secrets, theirIds, false);
  const pems = (ids: number[] = []) => pick(theirs, ids).map((m) => m.certificate_pem);
  return {
    found: true,
    organization_as2id: local.as2id,
    partner_as2id: remote.as2id,
    partner_id: remote.partner_id,
    endpoint: remote.endpoint,
    signing_algorithm: remote.signing_algorithm,
    encryption_algorithm: remote.encryption_algorithm,
    compression: remote.compression,
    mdn_mode: remote.mdn_mode,
    mdn_signed: remote.mdn_signed,
    receipt_timeout_hours: remote.receipt_timeout_hours,
    async_mdn_url:
      local.async_mdn_url ||
      (remote.mdn_mode === 'async' ? ((await derivedReceiptAddress(tx, publicUrl)) ?? '') : ''),
    signing: pick(own, localRefs.get('signing_certificate_id'))[0] ?? null,
    encryption: pems(remoteRefs.get('partner_certificate_id'))[0] ?? null,
    verification: pems(remoteRefs.get('signature_certificate_ids')),
    ecmqv_keys: pick(own, ecmqvIds).filter((m) => m.private_key_pem),
    tls_verify: remote.tls_verify,
    tls_trusted: pems(remoteRefs.get('tls_trusted_certificate_ids')),
    tls_client: pick(own, remoteRefs.get('tls_client_certificate_id'))[0] ?? null,
    http_basic_user: remote.http_basic_user,
    http_basic_password: remote.http_basic_password ? secrets.openText(remote.http_basic_password) : '',
    http_headers: remote.http_headers
      ? (JSON.parse(secrets.openText(remote.http_headers)) as { name: string; value: string }[])
      : [],
    interop: interopOptionsOf(pickInteropFields(remote)),
    as2bis: remote.as2bis,
  };
}
