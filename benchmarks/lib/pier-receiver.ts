/**
 * A `pier serve` set up through its REST API as the AS2 receiving side of a benchmark: receiver
 * `in` on a loopback port, organization `bob` (AS2 id BOB) receiving from partner `alice`
 * (ALICE), both with the benchmark's one certificate, and (unless told otherwise) a route to the
 * file-writer `out`, which writes each document to a file of its own.
 */
import { untilListening } from './listening.js';
import { benchApi } from './bench-api.js';
import type { BenchKeyPair, RequestProfile } from './as2-requests.js';

export interface PierReceiverOptions {
  serverUrl: string;
  token: string;
  keys: BenchKeyPair;
  port: number;
  profile: RequestProfile;
  /** The file-writer's directory; null for no route (messages are only accepted). */
  writerDirectory: string | null;
  /** The writer's max_concurrent_deliveries; its own default when absent. */
  maxConcurrentDeliveries?: number;
  /** The receiver's listener_threads; its own default (one per 4 cores) when absent. */
  listenerThreads?: number;
}

export async function setUpPierReceiver(options: PierReceiverOptions): Promise<void> {
  const { profile, writerDirectory, maxConcurrentDeliveries } = options;
  const bench = benchApi(options.serverUrl, options.token);
  const api = bench.post;
  const cert = await bench.certificate(options.keys.certificatePath, options.keys.keyPath);
  await api('/plugins/configs?type=as2-receiver', {
    enabled: false,
    name: 'in',
    host: '127.0.0.1',
    port: options.port,
    path: '/as2',
    ...(options.listenerThreads === undefined ? {} : { listener_threads: options.listenerThreads }),
  });
  const o = await api('/organizations', { name: 'bob' });
  await api('/as2/local-profiles', {
    local_organization_id: o.id,
    as2id: 'BOB',
    signing_certificate_id: cert,
  });
  const p = await api('/partners', { name: 'alice' });
  await api('/as2/remote-profiles', {
    business_partner_id: p.id,
    as2id: 'ALICE',
    signing_algorithm: profile.sign ? 'sha256' : 'none',
    encryption_algorithm: profile.encrypt ? 'aes256-cbc' : 'none',
    compression: profile.compress,
    mdn_mode: 'sync',
    mdn_signed: true,
    partner_certificate_id: cert,
    signature_certificate_ids: [cert],
    endpoint: 'http://127.0.0.1:9/as2',
  });
  if (writerDirectory !== null) {
    await api('/plugins/configs?type=file-writer', {
      enabled: false,
      name: 'out',
      directory: writerDirectory,
      // Every request carries the same file name; a file of its own per message, as an
      // operator would set it up (and as OpenAS2 names received files by Message-ID), instead
      // of each delivery comparing its bytes with the one file already there.
      path_pattern: '{from}/{id}-{filename}',
      ...(maxConcurrentDeliveries === undefined
        ? {}
        : { max_concurrent_deliveries: maxConcurrentDeliveries }),
    });
    await api('/routes', { source_plugin: 'in', from: 'alice', to: 'bob', target_plugin: 'out' });
    await api('/services/file-writer/out/start', {});
  }
  await api('/services/as2-receiver/in/start', {});
  // The start is answered before the receiver's thread listens (it loads its modules first).
  await untilListening(options.port);
}
