/** Opening the database: MikroORM over PostgreSQL, with migrations applied on request. */
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities/index.js';
import { migrationsList } from './migrations/index.js';

export type Orm = MikroORM;

export async function openDatabase(
  url: string,
  /** `create`: make the database DATABASE_URL names when it is missing (serve, migrate); checks never do. */
  options: { poolMax?: number; create?: boolean } = {},
): Promise<Orm> {
  return MikroORM.init({
    ensureDatabase: options.create ?? true,
    clientUrl: url,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    discovery: { warnWhenNoEntities: false },
    pool: { min: 0, max: options.poolMax ?? 10 },
    debug: false,
    allowGlobalContext: false,
    // The application owns every timestamp as timestamptz; no implicit local-time conversion.
    forceUtcTimezone: true,
  });
}

/** Arbitrary constant naming the migrations' advisory lock. */
const migrationLockKey = 7_313_000_002;

/**
 * Applies every pending migration; returns the names applied. Processes that start together
 * on one database take turns, so each migration runs once.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  const lock = new pg.Client({ connectionString: orm.config.get('clientUrl') });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [migrationLockKey]);
    const applied = await orm.getMigrator().up();
    return applied.map((m) => m.name);
  } finally {
    await lock.end();
  }
}
