/** A database of its own for each test file, on the server test/run.ts prepared. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import { migrate, openDatabase, type Orm } from '../../storage/db.js';

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

export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = adminUrl();
  const name = `pier_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database "${name}"`);
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
 * A database of its own with the migrations applied, opened through the ORM; dropped and
 * closed when `t` ends.
 */
export async function migratedDatabase(t: Test): Promise<{ orm: Orm; url: string }> {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const orm = await openDatabase(database.url);
  t.teardown(() => orm.close());
  await migrate(orm);
  return { orm, url: database.url };
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
