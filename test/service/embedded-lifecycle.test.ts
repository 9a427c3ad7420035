// Covers the embedded PostgreSQL's starts and stops: a server killed with -9 leaves
// its PostgreSQL running, the next server adopts it and its clean stop stops it; of two servers
// on one data directory the last to stop stops it; Ctrl-C
// (SIGINT to the process group) and SIGTERM under `npm start` log the stop and leave no node
// or postgres process of the data directory behind.
import { spawn } from 'node:child_process';
import { chmod, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t, { type Test } from 'tap';
import { tempDir } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { spawnPier } from '../helpers/process.js';
import { waitFor } from '../helpers/wait.js';

const root = path.resolve(import.meta.dirname, '../..');

/** A data directory the postgres user can enter (the embedded server runs as it under root). */
async function dataDirectory(t: Test): Promise<{ dir: string; dataDir: string }> {
  const dir = await tempDir(t, 'pier-embedded-');
  await chmod(dir, 0o755);
  return { dir, dataDir: path.join(dir, 'data') };
}

/** Pids of processes (other than this one) whose command line or environment names `dataDir`. */
async function processesOf(dataDir: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const read = (file: string) => readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => '');
    const [cmdline, environ] = await Promise.all([read('cmdline'), read('environ')]);
    const named = cmdline.split('\0').includes(path.join(dataDir, 'postgres'));
    if (named || environ.split('\0').includes(`PIER_DATA_DIR=${dataDir}`)) found.push(pid);
  }
  return found;
}

/** The command lines of these processes, for a failure message. */
async function commandsOf(pids: number[]): Promise<string> {
  const lines = await Promise.all(
    pids.map(
      async (pid) =>
        `${pid}: ${(await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replace(/\0/g, ' ')}`,
    ),
  );
  return lines.join('; ');
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

t.test('kill -9, then a start adopts the PostgreSQL left running, and a clean stop stops it', async (t) => {
  const { dir, dataDir } = await dataDirectory(t);
  const env = { PIER_EMBEDDED_PG_PORT: String(await freePort()) };
  const first = await spawnPier(t, { databaseUrl: '', dataDir, cwd: dir, env });
  const postgres = await postmasterPid(dataDir);
  await first.kill('SIGKILL');
  t.ok(alive(postgres), 'the killed server left its PostgreSQL running');

  const second = await spawnPier(t, { databaseUrl: '', dataDir, cwd: dir, env });
  const using = second.logLines.find((l) => l.msg === 'using the database');
  t.match(
    using?.database,
    /left running by a pier process that ended without stopping it; this process stops it/,
    'the start says it adopted the server',
  );
  t.equal(await postmasterPid(dataDir), postgres, 'the same PostgreSQL, not a second one');
  t.equal((await second.call('GET', '/organizations')).status, 200, 'and it serves');

  const exited = new Promise<number | null>((resolve) => second.child.once('exit', (code) => resolve(code)));
  second.child.kill('SIGTERM');
  t.equal(await exited, 0, 'the clean stop exits 0');
  await waitFor(() => !alive(postgres), 'PostgreSQL stopped', 30_000);
  t.same(await processesOf(dataDir), [], 'no process of the data directory is left');
});

t.test(
  'two servers on one data directory: the first to stop leaves PostgreSQL to the other, which stops it',
  async (t) => {
    const { dir, dataDir } = await dataDirectory(t);
    const env = { PIER_EMBEDDED_PG_PORT: String(await freePort()) };
    const first = await spawnPier(t, { databaseUrl: '', dataDir, cwd: dir, env });
    const second = await spawnPier(t, { databaseUrl: '', dataDir, cwd: dir, env });
    const postgres = await postmasterPid(dataDir);
    const stopped = async (pier: typeof first) => {
      const exited = new Promise<number | null>((resolve) =>
        pier.child.once('exit', (code) => resolve(code)),
      );
      pier.child.kill('SIGTERM');
      return exited;
    };

    t.equal(await stopped(first), 0, 'the starter stops cleanly');
    t.ok(alive(postgres), 'and leaves PostgreSQL running for the other server');
    t.equal((await second.call('GET', '/organizations')).status, 200, 'which still serves');
    t.equal(await stopped(second), 0, 'the last server stops cleanly');
    await waitFor(() => !alive(postgres), 'PostgreSQL stopped by the last server', 30_000);
    t.same(await processesOf(dataDir), [], 'no process of the data directory is left');
  },
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  t.test(`${signal} to the \`npm start\` process tree: the stop is logged, no process is left`, async (t) => {
    const { dir, dataDir } = await dataDirectory(t);
    const port = await freePort();
    // Its own process group, as a terminal gives a foreground job: the signal goes to all of it.
    const npm = spawn('npm', ['start'], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        PIER_DATA_DIR: dataDir,
        PIER_EMBEDDED_PG_PORT: String(await freePort()),
        PIER_SECRET_KEY: 'embedded-lifecycle-key',
        HTTP_PORT: String(port),
        METRICS_PORT: 'off',
        HTTP_HOST: '127.0.0.1',
      },
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
    t.teardown(async () => {
      for (const pid of await processesOf(dataDir)) process.kill(pid, 'SIGKILL');
    });
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined))?.status === 200,
      'npm start ready',
      90_000,
      100,
    );
    const before = await processesOf(dataDir);
    t.ok(before.length >= 2, `pier and its PostgreSQL run (${before.length} processes)`);

    process.kill(-npm.pid!, signal);
    await exited;
    // Two minutes: in the full suite at load 13 the embedded PostgreSQL took longer than 30 s to
    // stop, and once at load 15 longer than 60 s. What is left is named if it does not go.
    await waitFor(
      async () => (await processesOf(dataDir)).length === 0,
      'every process gone',
      120_000,
      100,
    ).catch(async (error: Error) => {
      // pier's own last lines say how its stop went (which signal, whether the server was left to others).
      const said = output.trim().split('\n').slice(-12).join('\n');
      throw new Error(
        `${error.message}; left: ${await commandsOf(await processesOf(dataDir))}; pier said:\n${said}`,
      );
    });
    t.match(
      output,
      /"msg":"pier is stopping: work in hand finishes, new work is refused"/,
      'the stop is logged',
    );
    t.match(output, /"msg":"pier stopped"/, 'and its end');
    t.notMatch(output, /"level":50/, 'no error on the way out');
    t.throws(() => process.kill(-npm.pid!, 0), { code: 'ESRCH' }, 'the process group is empty');
  });
}
