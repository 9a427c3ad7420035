// Covers exactly-once of the sftp-poller under kill -9 of the pier process mid-transfer, against a real sshd: killed while files of 1 MiB are being read from the server; after a restart every remote file is one message, delivered once with its bytes, and moved to processed on the server. (The sender's case is sftp-kill9-sender.test.ts: each needs most of a test file's time budget.)
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { killablePier, mustOn, partiesOn } from '../helpers/process.js';
import { sftpLogin, startSshd } from '../helpers/sshd.js';
import { waitFor } from '../helpers/wait.js';

const files = 40;
// A restarted process takes the killed one's claims back before its actors start (2–6 s from
// start to the last delivery when measured); the waits below are long for a loaded machine.
const sshd = await startSshd(t);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const login = sftpLogin(sshd);

t.test(
  'sftp-poller killed mid-transfer: every remote file becomes one message, delivered once',
  async (t) => {
    const { dir, start, count } = await killablePier(t, 'pier-sftp-kill9-poller-');
    const inbox = await sshd.directory('kill9-inbox');
    const processed = path.join(sshd.home, 'kill9-processed');
    const contents = new Map<string, Buffer>();
    for (let i = 0; i < files; i++) {
      const bytes = randomBytes(1024 * 1024);
      contents.set(`f${i}.bin`, bytes);
      await writeFile(path.join(inbox, `f${i}.bin`), bytes);
    }
    const first = await start();
    await partiesOn(first);
    await mustOn(first, '/plugins/configs?type=file-writer', {
      name: 'out',
      directory: path.join(dir, 'out'),
    });
    await mustOn(first, '/plugins/configs?type=sftp-poller', {
      name: 'pull',
      ...login,
      remote_directory: inbox,
      processed_directory: processed,
      from: 'globex',
      to: 'acme',
      polling_interval: 1,
    });
    await mustOn(first, '/routes', {
      source_plugin: 'pull',
      from: 'globex',
      to: 'acme',
      target_plugin: 'out',
    });

    await waitFor(async () => (await count('message')) >= 5, 'the takes under way', 60_000, 5);
    await first.kill('SIGKILL');
    const acceptedAtKill = await count('message');
    const leftOnServer = (await readdir(inbox)).length;
    t.ok(
      acceptedAtKill < files,
      `killed mid-run: ${acceptedAtKill} accepted, ${leftOnServer} files still on the server`,
    );

    await start();
    await waitFor(
      async () =>
        (await count("delivery where state = 'delivered'")) === files && (await readdir(inbox)).length === 0,
      'every file taken and delivered',
      240_000,
      100,
    );
    t.equal(await count('message'), files, 'one message per file: none lost, none doubled');
    t.equal(await count("message where status = 'Delivered'"), files);
    t.equal((await readdir(processed)).length, files, 'every file moved to processed on the server');
    const written = (await readdir(path.join(dir, 'out', 'globex'))).filter((f) => !f.startsWith('.'));
    t.equal(written.length, files, 'every file written once');
    const wrong = [...contents].filter(([name]) => !written.includes(name));
    t.same(wrong, [], 'under its own name');
    for (const [name, bytes] of contents) {
      if (sha(await readFile(path.join(dir, 'out', 'globex', name))) !== sha(bytes))
        wrong.push([name, bytes]);
    }
    t.same(
      wrong.map(([n]) => n),
      [],
      'with its bytes',
    );
  },
);
