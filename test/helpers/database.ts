/** A database of its own for each test file, on the server test/run.ts prepared. */
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import type { AcceptItem } from '../../flow/commands/accept.js';
import { migrate, openDatabase, type Orm } from '../../storage/db.js';
import { FlowConnections } from '../../storage/flow-connections.js';

function adminUrl(): string {
  const url = process.env.PIER_TEST_ADMIN_URL ?? process.env.DATABASE_URL;
  if (!url) throw new Error('Run tests with npm test (it prepares PostgreSQL), or set DATABASE_URL');
  return url;
}

export function urlForDatabase(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * The environment variable test/run.ts names its migrated template database in
 * (createMigratedTemplate): every test file that wants a migrated database gets a copy of it.
 */
export const templateVariable = 'PIER_TEST_TEMPLATE';

/** An empty database of its own, or with `template`, a copy of that database. */
export async function createTestDatabase(template?: string): Promise<TestDatabase> {
  const admin = adminUrl();
  const name = `pier_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database "${name}"${template ? ` template "${template}"` : ''}`);
  await client.end();
  return {
    url: urlForDatabase(admin, name),
    name,
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

/**
 * Made once by test/run.ts before any test file runs: a database with every migration applied,
 * which no one connects to afterwards, so each test file copies it (`create database … template`,
 * about half a second) instead of applying the migrations again (two seconds and more, for each
 * of the 180-odd servers and migrated databases of a suite). Its name; `drop` removes it.
 */
export async function createMigratedTemplate(): Promise<{ name: string; drop(): Promise<void> }> {
  const database = await migratedFromNothing();
  return { name: database.name, drop: database.drop };
}

/** An empty database with every migration applied to it here. */
async function migratedFromNothing(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  const orm = await openDatabase(database.url, { poolMax: 1 });
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
  return database;
}

/**
 * A fresh database with every migration applied: a copy of test/run.ts's template when there
 * is one (PIER_TEST_TEMPLATE), else an empty database migrated here. A migration makes the
 * first flow_config_version at random, so that a database made again from nothing does not
 * restart at a number a running process remembers; a copy gets a random one of its own too.
 */
export async function createMigratedDatabase(): Promise<TestDatabase> {
  const template = process.env[templateVariable];
  if (!template) return migratedFromNothing();
  const database = await createTestDatabase(template);
  await sql(database.url, 'update flow_config_version set n = (random() * 1e15)::bigint');
  return database;
}

/**
 * A database of its own with the migrations applied, opened through the ORM; dropped and
 * closed when `t` ends.
 */
export async function migratedDatabase(t: Test): Promise<{ orm: Orm; url: string }> {
  const database = await createMigratedDatabase();
  t.teardown(() => database.drop());
  const orm = await openDatabase(database.url);
  t.teardown(() => orm.close());
  return { orm, url: database.url };
}

/** `migratedDatabase` with the flow's own connections on it, closed when `t` ends: what the flow's commands run on. */
export async function migratedFlowDatabase(
  t: Test,
): Promise<{ orm: Orm; url: string; flow: FlowConnections }> {
  const made = await migratedDatabase(t);
  const flow = new FlowConnections(made.orm);
  t.teardown(() => flow.close());
  return { ...made, flow };
}

/** Runs SQL directly, for tests that tamper with rows or read what was stored. */
export async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Organization acme, partner globex, and two routes from source `in` (globex to acme): to the
 * targets `out` and `archive`. What the dispatcher's tests accept and claim through.
 */
export async function globexToAcmeRoutes(orm: Orm): Promise<void> {
  const connection = orm.em.getConnection();
  await connection.execute(`insert into organization (name) values ('acme')`);
  await connection.execute(`insert into partner (name) values ('globex')`);
  await connection.execute(
    `insert into route (name, source_plugin, from_party, to_party, target_plugin)
     values ('to-out', 'in', 'globex', 'acme', 'out'), ('to-archive', 'in', 'globex', 'acme', 'archive')`,
  );
}

/**
 * A file `in` offers from globex to acme, which the routes of globexToAcmeRoutes take: five bytes
 * held inline at `stage` (`unpacked`, the stage a claim hands out, as the AS2 receiver offers it).
 */
export function offeredFile(fileName: string, stage: 'received' | 'unpacked' = 'received'): AcceptItem {
  return {
    source_type: 'file-poller',
    source_name: 'in',
    message: {
      id: randomUUID(),
      from: 'globex',
      to: 'acme',
      file_name: fileName,
      source_key: `key-${fileName}`,
      payload: { stage, size_bytes: 5, content: Buffer.from('hello').toString('base64') },
    },
  };
}
