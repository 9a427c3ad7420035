/**
 * A `pier serve` set up through its REST API as the AS2 receiving side of a benchmark: receiver
 * `in` on a loopback port, organization `bob` (AS2 id BOB) receiving from partner `alice`
 * (ALICE), both with the benchmark's one certificate, and (unless told otherwise) a route to the
 * file-writer `out`, which writes each document to a file of its own (cli/bench/receiving-side.ts,
 * as `pier bench self` sets its own up).
 */
import { setUpReceivingSide } from '../../cli/bench/receiving-side.js';
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
  /** The writer's threads; its own default (one per 4 cores) when absent. */
  writerThreads?: number;
}

export async function setUpPierReceiver(options: PierReceiverOptions): Promise<void> {
  const bench = benchApi(options.serverUrl, options.token);
  await setUpReceivingSide(
    {
      post: bench.post,
      start: (type, name) => bench.post(`/services/${type}/${name}/start`, {}).then(() => {}),
    },
    {
      port: options.port,
      certificateId: await bench.certificate(options.keys.certificatePath, options.keys.keyPath),
      names: {
        receiver: 'in',
        organization: 'bob',
        organizationAs2id: 'BOB',
        partner: 'alice',
        partnerAs2id: 'ALICE',
        writer: 'out',
      },
      profile: options.profile,
      writerDirectory: options.writerDirectory,
      receiverSettings:
        options.listenerThreads === undefined ? {} : { listener_threads: options.listenerThreads },
      writerSettings: {
        ...(options.maxConcurrentDeliveries === undefined
          ? {}
          : { max_concurrent_deliveries: options.maxConcurrentDeliveries }),
        ...(options.writerThreads === undefined ? {} : { threads: options.writerThreads }),
      },
    },
  );
}
