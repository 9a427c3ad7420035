// Covers exactly-once of the sftp-sender under kill -9 of the pier process mid-transfer, against a real sshd: killed while a file of 1 MiB is being written on the server under its temporary name; after a restart every file lands once under its final name with its bytes, none lost, no temporary left. (The poller's case is sftp-kill9-poller.test.ts.)
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createTestDatabase, sql } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { mustOn, spawnPier } from '../helpers/process.js';
import { startSshd } from '../helpers/sshd.js';
import { waitFor } from '../helpers/wait.js';

const files = 40;
// A restarted process takes over the killed one's claims once that node is seen gone (tens of
// seconds), so the waits below are long.
const sshd = await startSshd(t);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A database and a directory of its own, and a pier on them that can be killed and started again. */
async function setUp(t: Test, name: string) {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const dir = await tempDir(t, `pier-sftp-kill9-${name}-`);
  const start = () => spawnPier(t, { databaseUrl: db.url, dataDir: path.join(dir, 'data'), cwd: dir });
  const count = async (where: string) =>
    Number((await sql(db.url, `select count(*)::int as n from ${where}`))[0]!.n);
  return { dir, start, count };
}

const login = {
  host: sshd.host,
  port: sshd.port,
  username: sshd.user,
  password: sshd.password,
  host_key_fingerprint: sshd.fingerprint,
};

t.test('sftp-sender killed mid-transfer: every file lands once, whole, with no temporary left', async (t) => {
  const { dir, start, count } = await setUp(t, 'sender');
  const outbox = await sshd.directory('kill9-outbox');
  const local = path.join(dir, 'in', 'globex');
  await mkdir(local, { recursive: true });
  const contents = new Map<string, Buffer>();
  for (let i = 0; i < files; i++) {
    const bytes = randomBytes(1024 * 1024);
    contents.set(`g${i}.bin`, bytes);
    await writeFile(path.join(local, `g${i}.bin`), bytes);
  }
  const first = await start();
  await mustOn(first, '/organizations', { name: 'acme' });
  await mustOn(first, '/partners', { name: 'globex' });
  await mustOn(first, '/plugins/configs?type=sftp-sender', {
    name: 'push',
    ...login,
    remote_directory: outbox,
    path_pattern: '{filename}',
    retry_interval: 1,
  });
  await mustOn(first, '/plugins/configs?type=file-poller', {
    name: 'in',
    base_directory: path.join(dir, 'in'),
    processed_directory: path.join(dir, 'done'),
    from: 'acme',
    polling_interval: 1,
  });
  await mustOn(first, '/routes', { source_plugin: 'in', from: 'acme', to: 'globex', target_plugin: 'push' });

  // Killed while a file is being written on the server.
  await waitFor(
    async () =>
      (await count("delivery where state = 'delivered'")) >= 1 &&
      (await readdir(outbox)).some((n) => n.endsWith('.part')),
    'a transfer under way',
    120_000,
    2,
  );
  await first.kill('SIGKILL');
  const deliveredAtKill = await count("delivery where state = 'delivered'");
  const temporaries = (await readdir(outbox)).filter((n) => n.endsWith('.part'));
  t.ok(deliveredAtKill < files, `killed mid-run: ${deliveredAtKill} delivered`);
  t.ok(
    temporaries.length > 0,
    `killed with ${temporaries.length} file(s) half written under a temporary name`,
  );

  await start();
  await waitFor(
    async () => (await count("delivery where state = 'delivered'")) === files,
    'all delivered',
    240_000,
    100,
  );
  t.equal(await count('message'), files, 'one message per file');
  const names = (await readdir(outbox)).sort();
  t.same(names, [...contents.keys()].sort(), 'every file once under its final name, no temporary left');
  const wrong: string[] = [];
  for (const [name, bytes] of contents)
    if (sha(await readFile(path.join(outbox, name))) !== sha(bytes)) wrong.push(name);
  t.same(wrong, [], 'each with its bytes');
});
