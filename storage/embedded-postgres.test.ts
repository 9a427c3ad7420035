// Covers the check before the embedded PostgreSQL starts: a binary the postgres user cannot
// reach gives an error that says why and what to do, where the library's unhandled spawn
// error used to crash the process. And how a process that started the server ends: with exit
// code 0 and the server stopped, whether it stopped the server itself or just ended.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { freePort } from '../test/helpers/free-port.js';
import { checkRunnableAs, postgresUserIds } from './embedded-postgres.js';

const ids = postgresUserIds();
// The check runs as another user, which needs root and a postgres user (as on the CI machines).
const canSwitch = process.getuid?.() === 0 && ids !== undefined;

t.test(
  'a binary behind a directory closed to others is refused with the reason and the fix',
  { skip: !canSwitch },
  async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pier-pg-bin-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const closed = path.join(dir, 'closed');
    mkdirSync(closed);
    const binary = path.join(closed, 'true');
    copyFileSync('/bin/true', binary);
    chmodSync(binary, 0o755);
    chmodSync(dir, 0o755);

    chmodSync(closed, 0o700);
    t.throws(() => checkRunnableAs(binary, ids!), {
      message: `the postgres user (uid ${ids!.uid}) cannot run ${binary} (EACCES): every directory on that path must be open to others (chmod o+rx), or set DATABASE_URL to a PostgreSQL server`,
    });

    chmodSync(closed, 0o755);
    t.doesNotThrow(() => checkRunnableAs(binary, ids!), 'the same binary, reachable, passes');
  },
);

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function stoppedListening(port: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!(await listening(port))) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

t.test(
  'a process that started the embedded server ends with exit code 0, the server stopped',
  // As root the library runs PostgreSQL as the postgres user (the CI machines); the data
  // directory is then opened to others.
  { skip: process.getuid?.() === 0 && ids === undefined },
  async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pier-pg-exit-'));
    chmodSync(dir, 0o755);
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const module = path.join(import.meta.dirname, 'embedded-postgres.ts');
    for (const [how, ending] of [
      // Then nothing keeps the process alive: it ends by itself (a benchmark does so).
      ['after stopping it', 'await server.stop();'],
      // The server's child process would keep it alive; an exit (or an uncaught error) ends
      // it, and its `exit` stops the server (lastResort).
      ['exiting without stopping it', 'process.exit(0);'],
    ]) {
      const port = await freePort();
      const child = spawnSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `const { startEmbeddedPostgres } = await import(${JSON.stringify(module)});
           const server = await startEmbeddedPostgres(${JSON.stringify(dir)}, { port: ${port} });
           console.log(server.startedHere ? 'started' : 'found');
           ${ending}`,
        ],
        { encoding: 'utf8', timeout: 120_000 },
      );
      t.equal(child.stdout.trim(), 'started', `${how}: the process started the server`);
      t.equal(
        child.status,
        0,
        `${how}: exit code 0 (${child.stderr.trim().split('\n').slice(-3).join(' ')})`,
      );
      t.notMatch(child.stderr, /is not a function/, `${how}: nothing failed on the way out`);
      t.ok(await stoppedListening(port), `${how}: the server no longer listens on ${port}`);
    }
  },
);
