// Covers exactly-once of the sftp-sender under kill -9 of the pier process mid-transfer, against a real sshd: 40 messages of 1 MiB queued by hand (POST /messages), the sender started and killed while a file is being written on the server under its temporary name; after a restart every file lands once under its final name with its bytes, none lost, no temporary left. (The poller's case is sftp-kill9-poller.test.ts.)
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { killablePier, mustOn, partiesOn } from '../helpers/process.js';
import { sftpLogin, startSshd } from '../helpers/sshd.js';
import { waitFor } from '../helpers/wait.js';

const files = 40;
// A restarted process takes the killed one's claims back before its actors start (2–6 s from
// start to the last delivery when measured); the waits below are long for a loaded machine.
const sshd = await startSshd(t);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const login = sftpLogin(sshd);

t.test('sftp-sender killed mid-transfer: every file lands once, whole, with no temporary left', async (t) => {
  const { dbUrl, start, count } = await killablePier(t, 'pier-sftp-kill9-sender-');
  const outbox = await sshd.directory('kill9-outbox');
  const contents = new Map<string, Buffer>();
  for (let i = 0; i < files; i++) contents.set(`g${i}.bin`, randomBytes(1024 * 1024));
  const first = await start();
  await partiesOn(first);
  await mustOn(first, '/plugins/configs?type=sftp-sender', {
    name: 'push',
    enabled: false,
    ...login,
    remote_directory: outbox,
    path_pattern: '{filename}',
    retry_interval: 1,
  });
  // Every message is queued for the sender before it starts: the test is about the sender alone.
  for (const [name, bytes] of contents) {
    const body = new FormData();
    body.set('from', 'acme');
    body.set('to', 'globex');
    body.set('target', 'push');
    body.set('file', new Blob([new Uint8Array(bytes)]), name);
    const made = await fetch(`${first.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'x-requested-with': 'test' },
      body,
    });
    if (made.status !== 201) throw new Error(`upload of ${name}: ${made.status} ${await made.text()}`);
  }
  await mustOn(first, '/services/sftp-sender/push/start');

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

  const second = await start();
  await waitFor(
    async () => (await count("delivery where state = 'delivered'")) === files,
    'all delivered',
    200_000,
    100,
  ).catch(async (error: unknown) => {
    // What was left, for the one reading the failure.
    t.comment(
      JSON.stringify(
        await sql(dbUrl, "select id, state, attempts, last_error from delivery where state <> 'delivered'"),
      ),
    );
    t.comment(JSON.stringify(second.logLines.filter((l) => l.level >= 40).slice(-20)));
    throw error;
  });
  t.equal(await count('message'), files, 'one message per file');
  const names = (await readdir(outbox)).sort();
  t.same(names, [...contents.keys()].sort(), 'every file once under its final name, no temporary left');
  const wrong: string[] = [];
  for (const [name, bytes] of contents)
    if (sha(await readFile(path.join(outbox, name))) !== sha(bytes)) wrong.push(name);
  t.same(wrong, [], 'each with its bytes');
});
