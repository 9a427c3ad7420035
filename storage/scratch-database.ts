/**
 * A database of its own next to the install's, for `pier bench self`: made on the same
 * PostgreSQL server (so the figures are this machine's and this server's), dropped afterwards.
 * Its name starts with pier_bench_self_, so one left behind by a killed run is easy to find.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ScratchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function onServer(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A new empty database on `adminUrl`'s server; needs the CREATEDB privilege. */
export async function createScratchDatabase(adminUrl: string): Promise<ScratchDatabase> {
  const name = `pier_bench_self_${randomBytes(4).toString('hex')}`;
  try {
    await onServer(adminUrl, `create database "${name}"`);
  } catch (error) {
    throw new Error(
      `Cannot make a scratch database for the run (${(error as Error).message}); the database user needs CREATEDB`,
    );
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => onServer(adminUrl, `drop database if exists "${name}" with (force)`),
  };
}
