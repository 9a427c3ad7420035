/**
 * AS2 receiving on `pier serve` processes that share a database, for the failover test and
 * benchmark: organization bob (AS2 id BOB) receives from partner alice (ALICE), both with one
 * certificate, on one receiver per process, each routed to the file writer `target`.
 *
 * Every process starts every enabled receiver. Here each receiver `as2-<n>` listens on one thread
 * with its port to itself (listener_threads 1: no SO_REUSEPORT, so two processes cannot share
 * it) unless `receiver` says otherwise, and gets a port of its own, and while process n
 * starts, the ports of the later processes' receivers are held here: its other receivers fail to listen
 * (and stay failed, an actor that fails to start is not started again by itself), and each
 * process ends up running exactly one receiver.
 */
import { createServer, type Server } from 'node:net';
import type { Test } from 'tap';
import type { Fixtures } from './certificates.js';
import { freePort } from './free-port.js';
import { syncSignedCompressed } from './as2.js';
import { bobFromAliceOn, mustOn, spawnPier, type PierProcess } from './process.js';
import { waitFor } from './wait.js';

export interface As2Receivers {
  processes: PierProcess[];
  /** The AS2 URL of each process's receiver, in the processes' order. */
  urls: string[];
  /** The receivers' instance names, in the processes' order. */
  names: string[];
}

/**
 * Spawns `count` processes with `spawn(n)` and sets AS2 receiving up through the first
 * (`configure` adds the rest of the configuration there, before the others start).
 */
export async function as2ReceiversOnProcesses(
  t: Pick<Test, 'teardown'>,
  count: number,
  spawn: (n: number) => Parameters<typeof spawnPier>[1],
  keys: { fixtures: Fixtures; certFile: string; keyFile: string },
  target: string,
  configure: (first: PierProcess) => Promise<void>,
  /** More settings of every receiver (test/cluster/receiver-shared-port.test.ts shares its port). */
  receiver: Record<string, unknown> = { listener_threads: 1 },
): Promise<As2Receivers> {
  const ports = await Promise.all(Array.from({ length: count }, () => freePort()));
  const names = ports.map((_, n) => `as2-${n}`);
  const processes: PierProcess[] = [];
  for (let n = 0; n < count; n++) {
    // The receivers of processes started before listen already.
    const held = await Promise.all(ports.filter((_, i) => i > n).map(hold));
    try {
      const p = await spawnPier(t, spawn(n));
      processes.push(p);
      if (n === 0) await configureAs2(p, keys, names, ports, target, configure, receiver);
      await waitFor(
        async () => {
          const list = (await p.call('GET', '/services')).body.data as { name: string; status: string }[];
          return list.some((s) => s.name === names[n] && s.status === 'running') || undefined;
        },
        `${names[n]} running in process ${n}`,
        30_000,
        100,
      );
    } finally {
      await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  }
  return { processes, names, urls: ports.map((port) => `http://127.0.0.1:${port}/as2`) };
}

function hold(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

async function configureAs2(
  p: PierProcess,
  keys: { fixtures: Fixtures; certFile: string; keyFile: string },
  names: string[],
  ports: number[],
  target: string,
  configure: (first: PierProcess) => Promise<void>,
  receiver: Record<string, unknown>,
): Promise<void> {
  const form = new FormData();
  form.append(
    'certificate',
    new Blob([keys.fixtures.read(keys.certFile).toString('utf8')]),
    'certificate.pem',
  );
  form.append('private_key', new Blob([keys.fixtures.read(keys.keyFile).toString('utf8')]), 'key.pem');
  // With a description the upload imports at once (without, it answers a preview to confirm).
  form.append('description', 'alice and bob');
  const up = await fetch(`${p.url}/api/v1/certificates`, {
    method: 'POST',
    headers: { 'x-requested-with': 'test' },
    body: form,
  });
  if (up.status !== 201) throw new Error(`certificate upload: ${await up.text()}`);
  const certificate = ((await up.json()) as { data: { id: number } }).data.id;
  await configure(p);
  await bobFromAliceOn(p, certificate, certificate, syncSignedCompressed);
  for (const [n, name] of names.entries()) {
    await mustOn(p, '/plugins/configs?type=as2-receiver', {
      name,
      host: '127.0.0.1',
      port: ports[n],
      path: '/as2',
      ...receiver,
    });
    await mustOn(p, '/routes', { source_plugin: name, from: 'alice', to: 'bob', target_plugin: target });
  }
}
