// Covers both SFTP connectors against a real OpenSSH server: file-poller → sftp-sender (password login) and sftp-poller (key login) → file-writer with the bytes compared, a growing file left until it is complete and then taken once, taken files moved or deleted on the server, and secrets never shown.
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { fileFlow, must, parties, runningOn, tempDir, waitForMessages } from '../helpers/flow.js';
import type { Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { startSshd } from '../helpers/sshd.js';
import { waitFor } from '../helpers/wait.js';

const server = await startTestServer(t);
const sshd = await startSshd(t);
const dir = await tempDir(t);
await parties(server);
const login = {
  host: sshd.host,
  port: sshd.port,
  username: sshd.user,
  host_key_fingerprint: sshd.fingerprint,
};
const outbox = await sshd.directory('outbox');
const inbox = await sshd.directory('inbox');
const dropbox = await sshd.directory('dropbox');

await must(server, '/plugins/configs?type=sftp-sender', {
  name: 'to-globex',
  ...login,
  password: sshd.password,
  remote_directory: outbox,
  path_pattern: '{to}/{filename}',
  retry_interval: 1,
});
await mkdir(path.join(dir, 'outgoing', 'globex'), { recursive: true });
await fileFlow(server, dir, {
  source: 'outgoing',
  processed: 'sent',
  poller: { polling_interval: 1 },
  target: 'to-globex',
});

await must(server, '/plugins/configs?type=sftp-poller', {
  name: 'from-globex',
  ...login,
  private_key: sshd.privateKey,
  remote_directory: inbox,
  processed_directory: path.join(sshd.home, 'processed'),
  from: 'globex',
  to: 'acme',
  polling_interval: 1,
});
await must(server, '/plugins/configs?type=sftp-poller', {
  name: 'drop-globex',
  ...login,
  password: sshd.password,
  remote_directory: dropbox,
  after_take: 'delete',
  file_pattern: '*.edi',
  from: 'globex',
  to: 'acme',
  polling_interval: 1,
});
await must(server, '/plugins/configs?type=file-writer', {
  name: 'erp',
  directory: path.join(dir, 'erp'),
  path_pattern: '{id}-{filename}',
});
await must(server, '/routes', {
  source_plugin: 'from-globex',
  from: 'globex',
  to: 'acme',
  target_plugin: 'erp',
});
await must(server, '/routes', {
  source_plugin: 'drop-globex',
  from: 'globex',
  to: 'acme',
  target_plugin: 'erp',
});
for (const [type, name] of [
  ['sftp-sender', 'to-globex'],
  ['sftp-poller', 'from-globex'],
  ['sftp-poller', 'drop-globex'],
  ['file-poller', 'outgoing'],
  ['file-writer', 'erp'],
] as const)
  await runningOn(server, type, name);

const settled = (name: string) => (l: Message[]) =>
  l.find((m) => m.file_name === name && m.stage === 'settled');

t.test('file-poller → sftp-sender: each file lands whole under its final name on the server', async (t) => {
  const files = {
    'small.edi': Buffer.from('UNB+UNOC:3+ACME+GLOBEX'),
    'large.bin': randomBytes(3 * 1024 * 1024 + 17),
  };
  for (const [name, bytes] of Object.entries(files))
    await writeFile(path.join(dir, 'outgoing', 'globex', name), bytes);
  for (const [name, bytes] of Object.entries(files)) {
    const list = await waitForMessages(server, '', (l) => !!settled(name)(l), `${name} delivered`, 30_000);
    t.match(settled(name)(list), {
      status: 'Delivered',
      deliveries: [{ target: 'to-globex', state: 'delivered', attempts: 1 }],
    });
    t.same(await readFile(path.join(outbox, 'globex', name)), bytes, `${name}: the same bytes on the server`);
  }
  t.same(
    (await readdir(path.join(outbox, 'globex'))).sort(),
    ['large.bin', 'small.edi'],
    'no temporary file left',
  );
});

t.test(
  'sftp-poller → file-writer: a file is taken once, with its bytes, and moved to processed',
  async (t) => {
    const bytes = randomBytes(200 * 1024);
    await writeFile(path.join(inbox, 'orders.xml'), bytes);
    const list = await waitForMessages(
      server,
      '',
      (l) => !!settled('orders.xml')(l),
      'orders.xml delivered',
      30_000,
    );
    const m = settled('orders.xml')(list);
    t.match(m, { status: 'Delivered', from: 'globex', to: 'acme', direction: 'inbound' });
    t.same(
      await readFile(path.join(dir, 'erp', `${m.id}-orders.xml`)),
      bytes,
      'the written file has the bytes',
    );
    // The move follows the acceptance, beside the delivery: wait for it rather than race it.
    await waitFor(async () => (await readdir(inbox)).length === 0, 'orders.xml moved away', 10_000);
    t.same(await readdir(inbox), [], 'the file left the remote directory');
    t.same(
      await readFile(path.join(sshd.home, 'processed', 'orders.xml')),
      bytes,
      'and is in processed_directory',
    );
    const payload = await server.call('GET', `/api/v1/messages/${m.id}/payload`);
    t.same(payload.bytes, bytes, 'the stored payload has the bytes');
  },
);

t.test('a file still growing is left until two looks see it unchanged, then taken once', async (t) => {
  const file = path.join(inbox, 'growing.dat');
  const parts: Buffer[] = [];
  await writeFile(file, '');
  // Grows for about four polling intervals.
  for (let i = 0; i < 10; i++) {
    const part = randomBytes(8 * 1024);
    parts.push(part);
    await appendFile(file, part);
    const seen = (await server.call('GET', '/api/v1/messages?limit=500')).body.data.messages as Message[];
    t.notOk(
      seen.some((m) => m.file_name === 'growing.dat'),
      `not taken while growing (${i + 1} parts written)`,
    );
    await new Promise((r) => setTimeout(r, 400));
  }
  const list = await waitForMessages(
    server,
    '',
    (l) => !!settled('growing.dat')(l),
    'growing.dat delivered',
    30_000,
  );
  const m = settled('growing.dat')(list);
  t.same(
    await readFile(path.join(dir, 'erp', `${m.id}-growing.dat`)),
    Buffer.concat(parts),
    'the whole file',
  );
  await new Promise((r) => setTimeout(r, 2500));
  const all = (await server.call('GET', '/api/v1/messages?limit=500')).body.data.messages as Message[];
  t.equal(all.filter((x) => x.file_name === 'growing.dat').length, 1, 'one message');
});

t.test(
  'after_take delete: the taken file is deleted on the server; other names are left alone',
  async (t) => {
    await writeFile(path.join(dropbox, 'invoice.edi'), 'UNH+1+INVOIC');
    await writeFile(path.join(dropbox, 'readme.txt'), 'not for pier');
    await waitForMessages(server, '', (l) => !!settled('invoice.edi')(l), 'invoice.edi delivered', 30_000);
    // The delete follows the acceptance, beside the delivery: wait for it rather than race it.
    await waitFor(
      async () => !(await readdir(dropbox)).includes('invoice.edi'),
      'invoice.edi deleted on the server',
      10_000,
    );
    t.same(await readdir(dropbox), ['readme.txt'], 'invoice.edi deleted, readme.txt (not *.edi) kept');
  },
);

t.test('passwords and keys are write-only: configurations show only that they are set', async (t) => {
  for (const [type, name] of [
    ['sftp-sender', 'to-globex'],
    ['sftp-poller', 'from-globex'],
  ]) {
    const got = await server.call('GET', `/api/v1/plugins/configs/${type}/${name}`);
    t.equal(got.status, 200);
    t.notMatch(got.raw, sshd.password, 'no password');
    t.notMatch(got.raw, /PRIVATE KEY/, 'no private key');
    t.ok((got.body.data.secrets_set as string[]).length > 0, 'secrets_set names what is stored');
  }
  const services = await server.call('GET', '/api/v1/services');
  t.notMatch(services.raw, sshd.password);
});
