/**
 * Database reachable and migrated. The doctor never migrates: it says what `pier migrate`
 * would apply, and notices a database migrated by a newer pier than this one.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProcessOptions } from '../../../api/process-options.js';
import { connectDatabase, type Database } from '../../../storage/connect.js';
import { appliedMigrations, migrationNames } from '../../../storage/migrations/names.js';
import { failed, passed, type CheckResult } from '../checklist.js';

const id = 'database';
const title = 'Database reachable and migrated';

export interface DatabaseCheck {
  result: CheckResult;
  /** Open when the database answered (migrated or not); the caller closes it. */
  database?: Database;
  migrated: boolean;
}

export async function checkDatabase(options: ProcessOptions): Promise<DatabaseCheck> {
  let database: Database;
  try {
    // A data directory never made is reported, not made (pier init makes it).
    database = await connectDatabase(options, { runMigrations: false, create: false });
  } catch (error) {
    return {
      migrated: false,
      result: failed(
        id,
        title,
        (error as Error).message,
        options.databaseUrl
          ? 'Start PostgreSQL or correct DATABASE_URL (host, port, user, password, database name); ' +
              'the same URL must work with `psql "$DATABASE_URL" -c "select 1"`'
          : `The embedded PostgreSQL under ${options.dataDir} did not start (its words are above): ` +
              'free its port (PIER_EMBEDDED_PG_PORT) or its data directory, or set DATABASE_URL to your PostgreSQL',
      ),
    };
  }
  const applied = await appliedMigrations(database.orm.em.fork() as EntityManager);
  const known: readonly string[] = migrationNames;
  const pending = known.filter((name) => !(applied ?? []).includes(name));
  const unknown = (applied ?? []).filter((name) => !known.includes(name));
  const notMigrated = (problem: string, advice: string) => ({
    database,
    migrated: false,
    result: failed(id, title, problem, advice),
  });
  if (unknown.length > 0) {
    return notMigrated(
      `${database.description} was migrated by a newer pier: this installation does not know ${unknown.join(', ')}`,
      'Run the pier version that migrated this database (upgrade this installation); never run an older pier against it',
    );
  }
  if (pending.length > 0) {
    return notMigrated(
      applied === undefined
        ? `${database.description} has never been migrated (${known.length} migrations to apply)`
        : `${database.description} lacks ${pending.length} of ${known.length} migrations (first: ${pending[0]})`,
      '`pier migrate` with the same DATABASE_URL (the server also migrates when it starts)',
    );
  }
  return {
    database,
    migrated: true,
    result: passed(id, title, `${database.description}; all ${known.length} migrations applied`),
  };
}
