// Covers a local payload store on a real full, then read-only, file system (a 1 MiB tmpfs): the file poller raises storage_failed once and storage_recovered once per outage, logs a line when the store fails and one when it works again (never one per file per look), leaves the files for later and takes them once there is room; the storage test reports low free space as a failing write step with the figures.
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, rm, statfs, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { fileFlow, parties, runningOn, tempDir } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const dir = await tempDir(t, 'pier-full-store-');
const store = path.join(dir, 'store');
const inbox = path.join(dir, 'in');
await mkdir(store);
await mkdir(path.join(inbox, 'globex'), { recursive: true });
// A real small file system: the kernel answers ENOSPC and EROFS as on a production disk.
execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'pier-full-store', store]);

const lines: { msg: string; level: number }[] = [];
const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
const server = await startTestServer(t, { logger, storage: { storage_local_directory: store } });
t.teardown(() => execFileSync('umount', ['--lazy', store]));
await parties(server);

const alerts = (code: string) =>
  sql(server.db.url, 'select * from alert where code = $1 order by id', [code]).then((r) => r.length);
const logged = (text: string) => lines.filter((l) => l.msg.includes(text)).length;
const waiting = async () => (await readdir(path.join(inbox, 'globex'))).length;
/** Files above the 64 KiB kept in the database, so each needs the store. */
const drop = async (prefix: string, count: number) => {
  for (let i = 0; i < count; i++)
    await writeFile(path.join(inbox, 'globex', `${prefix}-${i}.bin`), Buffer.alloc(100 * 1024, i));
};
const filler = path.join(store, 'filler');
const fill = async (leaveBytes: number) => {
  const fs = await statfs(store);
  await writeFile(filler, Buffer.alloc(fs.bavail * fs.bsize - leaveBytes));
};
const probe = async () => (await server.call('POST', '/api/v1/settings/storage/test')).body.data;

t.test(
  'the storage test fails the write step below the free space threshold, with the figures',
  async (t) => {
    await fill(40 * 1024);
    t.match(await probe(), {
      ok: false,
      step: 'write',
      problem: new RegExp(
        `^${store} has 0\\.0 MiB free of 1\\.0 MiB \\(40960 bytes\\), below the 0\\.1 MiB pier wants free$`,
      ),
    });
    await rm(filler);
    t.match(await probe(), { ok: true });
  },
);

t.test(
  'a full store: one alert, two log lines, the files wait and are taken when there is room',
  async (t) => {
    await fill(40 * 1024);
    await fileFlow(server, dir, { poller: { polling_interval: 1 }, writer: false, route: false });
    await runningOn(server, 'file-poller', 'in');
    await drop('full', 6);
    await waitFor(async () => (await alerts('storage_failed')) === 1, 'storage_failed raised', 10_000);
    // Several more looks at the six files while the store stays full.
    await new Promise((r) => setTimeout(r, 4_000));
    t.equal(await alerts('storage_failed'), 1, 'raised once');
    t.equal(await waiting(), 6, 'every file waits in the directory');
    t.equal(logged('cannot take payloads'), 1, 'one line when the store fails');
    t.equal(logged('could not take a file'), 0, 'no line per file');
    const [failed] = await sql(server.db.url, "select * from alert where code = 'storage_failed'");
    t.match(failed, {
      severity: 'critical',
      subject_kind: 'storage',
      subject_id: 'local',
      instance: 'file-poller:in',
      summary: /^The payload directory .+ cannot take payloads: ENOSPC: no space left on device/,
    });

    await rm(filler);
    await waitFor(async () => (await waiting()) === 0, 'the files taken once there is room', 15_000);
    await waitFor(async () => (await alerts('storage_recovered')) === 1, 'storage_recovered raised', 10_000);
    t.equal(logged('takes payloads again'), 1, 'one line when it works again');
    t.equal(await alerts('storage_failed'), 1);
  },
);

t.test('a read-only store: a new alert after the last one ended, and its end', async (t) => {
  execFileSync('mount', ['-o', 'remount,ro', store]);
  await drop('ro', 4);
  await waitFor(async () => (await alerts('storage_failed')) === 2, 'storage_failed raised again', 10_000);
  const [readOnly] = await sql(
    server.db.url,
    "select summary from alert where code = 'storage_failed' order by id desc limit 1",
  );
  t.match(readOnly!.summary, /read-only file system/);
  await new Promise((r) => setTimeout(r, 3_000));
  t.equal(await alerts('storage_failed'), 2, 'once per outage');
  t.equal(logged('could not take a file'), 0);
  t.equal(await waiting(), 4);
  execFileSync('mount', ['-o', 'remount,rw', store]);
  await waitFor(async () => (await waiting()) === 0, 'the files taken once writable', 15_000);
  await waitFor(async () => (await alerts('storage_recovered')) === 2, 'the second end', 10_000);
  t.equal(logged('cannot take payloads'), 2);
  t.equal(logged('takes payloads again'), 2);
});
