// Covers the SFTP sender's failed attempts against a real sshd: a connection dropped mid-transfer (through a TCP proxy that is cut) and a full remote disk (a small tmpfs) each fail the attempt, which is retried; no half file ever appears under the final name, and once the server is reachable or has room the delivery completes with the same bytes.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { fileFlow, must, parties, runningOn, tempDir, waitForMessages } from '../helpers/flow.js';
import type { Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { startSshd } from '../helpers/sshd.js';
import { tcpProxy } from '../helpers/tcp-proxy.js';
import { waitFor } from '../helpers/wait.js';

const server = await startTestServer(t);
const sshd = await startSshd(t);
const dir = await tempDir(t);
await parties(server);
await must(server, '/partners', { name: 'initech' });
const proxy = await tcpProxy({ host: sshd.host, port: sshd.port });
t.teardown(() => proxy.close());
const outbox = await sshd.directory('outbox');
const small = await sshd.smallDisk('small', 1024 * 1024);
const login = {
  host: sshd.host,
  username: sshd.user,
  password: sshd.password,
  host_key_fingerprint: sshd.fingerprint,
  path_pattern: '{filename}',
  retry_interval: 1,
  retry_backoff: 1,
  timeout_seconds: 5,
};
await must(server, '/plugins/configs?type=sftp-sender', {
  name: 'via-proxy',
  ...login,
  port: proxy.port,
  remote_directory: outbox,
});
await must(server, '/plugins/configs?type=sftp-sender', {
  name: 'small-disk',
  ...login,
  port: sshd.port,
  remote_directory: small,
});
for (const to of ['globex', 'initech']) await mkdir(path.join(dir, 'out', to), { recursive: true });
await fileFlow(server, dir, {
  source: 'out',
  processed: 'sent',
  poller: { polling_interval: 1 },
  target: 'via-proxy',
});
await must(server, '/routes', {
  source_plugin: 'out',
  from: 'acme',
  to: 'initech',
  target_plugin: 'small-disk',
});
for (const [type, name] of [
  ['sftp-sender', 'via-proxy'],
  ['sftp-sender', 'small-disk'],
  ['file-poller', 'out'],
] as const)
  await runningOn(server, type, name);

const named = (name: string) => (l: Message[]) => l.find((m) => m.file_name === name);

t.test(
  'a connection dropped mid-transfer fails the attempt; the retry delivers the whole file',
  async (t) => {
    const bytes = randomBytes(48 * 1024 * 1024);
    await writeFile(path.join(dir, 'out', 'globex', 'big.bin'), bytes);
    // Cut while the temporary file is being written.
    const temp = await waitFor(
      async () => {
        const names = await readdir(outbox);
        const part = names.find((n) => n.endsWith('.part'));
        if (!part) return undefined;
        const size = (await stat(path.join(outbox, part)).catch(() => undefined))?.size ?? 0;
        return size > 0 && size < bytes.length ? part : undefined;
      },
      'the transfer under way',
      60_000,
      5,
    );
    await proxy.cut();
    t.match(temp, /^\.pier-\d+\.part$/, 'written under a hidden temporary name');
    const failed = await waitForMessages(
      server,
      '',
      (l) => named('big.bin')(l)?.deliveries[0]?.state === 'retrying',
      'the attempt failed',
      30_000,
    );
    t.match(named('big.bin')(failed).deliveries[0], {
      attempts: 1,
      last_error: /connection to 127\.0\.0\.1 port/,
    });
    t.notOk((await readdir(outbox)).includes('big.bin'), 'no file under the final name');
    await proxy.restore();
    const done = await waitForMessages(
      server,
      '',
      (l) => named('big.bin')(l)?.status === 'Delivered',
      'delivered after the retry',
      60_000,
    );
    t.ok(named('big.bin')(done).deliveries[0].attempts >= 2, 'on a later attempt');
    t.same(await readFile(path.join(outbox, 'big.bin')), bytes, 'the whole file, byte for byte');
    t.same(await readdir(outbox), ['big.bin'], 'no temporary file left');
  },
);

t.test(
  'a full remote disk fails the attempt without a file; the retry delivers once there is room',
  async (t) => {
    const bytes = randomBytes(3 * 1024 * 1024);
    await writeFile(path.join(dir, 'out', 'initech', 'huge.edi'), bytes);
    const failed = await waitForMessages(
      server,
      '',
      (l) => named('huge.edi')(l)?.deliveries[0]?.state === 'retrying',
      'the attempt failed',
      30_000,
    );
    t.match(
      named('huge.edi')(failed).deliveries[0].last_error,
      /Writing .*\.pier-\d+\.part: .*disk may be full/,
    );
    t.same(await readdir(small), [], 'neither the final name nor the temporary file is there');
    await sshd.resizeDisk(small, 8 * 1024 * 1024);
    const done = await waitForMessages(
      server,
      '',
      (l) => named('huge.edi')(l)?.status === 'Delivered',
      'delivered once there is room',
      60_000,
    );
    t.ok(named('huge.edi')(done).deliveries[0].attempts >= 2);
    t.same(await readFile(path.join(small, 'huge.edi')), bytes, 'the whole file');
    t.same(await readdir(small), ['huge.edi']);
  },
);
