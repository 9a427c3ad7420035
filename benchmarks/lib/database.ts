/** A fresh database for one benchmark run: on DATABASE_URL's server, else an embedded one. */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../storage/embedded-postgres.js';

export interface BenchDatabase {
  url: string;
  /** The database's name (PostgreSQL backends show it in their process titles). */
  name: string;
  drop(): Promise<void>;
}

export async function benchDatabase(): Promise<BenchDatabase> {
  let admin = process.env.DATABASE_URL;
  let stop: (() => Promise<void>) | undefined;
  if (!admin) {
    const embedded = await startEmbeddedPostgres(path.resolve(import.meta.dirname, '../../.test-pg'), {
      port: Number(process.env.PIER_TEST_PG_PORT || 54330),
      database: 'postgres',
    });
    admin = embedded.url;
    stop = embedded.stop;
  }
  const name = `pier_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database "${name}"`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      // PIER_BENCH_KEEP_DB=1 keeps the database for a look afterwards (EXPLAIN, pg_stat_*).
      if (process.env.PIER_BENCH_KEEP_DB === '1') {
        process.stderr.write(`kept database ${name}\n`);
        await stop?.();
        return;
      }
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
      await stop?.();
    },
  };
}
