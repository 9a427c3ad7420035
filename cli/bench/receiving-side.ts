/**
 * The receiving side of an AS2 benchmark on a pier, set up through its REST API: an AS2 receiver
 * on a loopback port, an organization receiving from one partner, both with the run's one
 * certificate, and (unless `writerDirectory` is null) a route to a file-writer that writes each
 * document to a file of its own. `pier bench self` and the repository's benchmarks
 * (benchmarks/lib/pier-receiver.ts) set theirs up here, so both measure the same set-up.
 */
import { untilListening } from './listening.js';

export interface ReceivingSide {
  port: number;
  certificateId: number;
  names: {
    receiver: string;
    organization: string;
    organizationAs2id: string;
    partner: string;
    partnerAs2id: string;
    writer: string;
  };
  /** What the partner's messages carry. */
  profile: { sign: boolean; encrypt: boolean; compress: boolean };
  /** The file-writer's directory; null for no route (messages are only accepted). */
  writerDirectory: string | null;
  /** More settings of the receiver (listener_threads) and of the writer (max_concurrent_deliveries). */
  receiverSettings?: Record<string, unknown>;
  writerSettings?: Record<string, unknown>;
}

export interface ReceivingSideApi {
  /** POST of a JSON body; the answer's `data`. */
  post(url: string, body: unknown): Promise<Record<string, unknown>>;
  /** Starts a service instance. */
  start(type: string, name: string): Promise<void>;
}

export async function setUpReceivingSide(api: ReceivingSideApi, side: ReceivingSide): Promise<void> {
  const { names, profile, certificateId: cert } = side;
  await api.post('/plugins/configs?type=as2-receiver', {
    enabled: false,
    name: names.receiver,
    host: '127.0.0.1',
    port: side.port,
    path: '/as2',
    ...side.receiverSettings,
  });
  const organization = await api.post('/organizations', { name: names.organization });
  await api.post('/as2/local-profiles', {
    local_organization_id: organization.id,
    as2id: names.organizationAs2id,
    signing_certificate_id: cert,
  });
  const partner = await api.post('/partners', { name: names.partner });
  await api.post('/as2/remote-profiles', {
    business_partner_id: partner.id,
    as2id: names.partnerAs2id,
    signing_algorithm: profile.sign ? 'sha256' : 'none',
    encryption_algorithm: profile.encrypt ? 'aes256-cbc' : 'none',
    compression: profile.compress,
    mdn_mode: 'sync',
    mdn_signed: true,
    partner_certificate_id: cert,
    signature_certificate_ids: [cert],
    endpoint: 'http://127.0.0.1:9/as2',
  });
  if (side.writerDirectory !== null) {
    await api.post('/plugins/configs?type=file-writer', {
      enabled: false,
      name: names.writer,
      directory: side.writerDirectory,
      // Every request carries the same file name; a file of its own per message, as an operator
      // would set it up (and as OpenAS2 names received files by Message-ID), instead of each
      // delivery comparing its bytes with the one file already there.
      path_pattern: '{from}/{id}-{filename}',
      ...side.writerSettings,
    });
    await api.post('/routes', {
      source_plugin: names.receiver,
      from: names.partner,
      to: names.organization,
      target_plugin: names.writer,
    });
    await api.start('file-writer', names.writer);
  }
  await api.start('as2-receiver', names.receiver);
  // The start is answered before the receiver's thread listens (it loads its modules first).
  await untilListening(side.port);
}
