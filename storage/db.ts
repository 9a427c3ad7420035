/** Opening the database: MikroORM over PostgreSQL, with migrations applied on request. */
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { entities } from './entities/index.js';
import { ormLikeTypes } from './orm-like-types.js';
import { rememberFailoverUrl } from './failover-urls.js';
import { appliedMigrations, migrationNames } from './migrations/names.js';
import { primaryLocator, readOnlyQuery } from './primary-locator.js';

export type Orm = MikroORM;

export async function openDatabase(
  url: string,
  /** `create`: make the database DATABASE_URL names when it is missing (serve, migrate); checks never do. */
  options: { poolMax?: number; create?: boolean } = {},
): Promise<Orm> {
  const locator = primaryLocator(url);
  // The ORM reads one host from its URL: the primary now. With several hosts, each new
  // connection of its pool asks the locator instead, so after a failover the pool refills on
  // the new primary (the old one's connections broke and were dropped).
  const primary = await locator.primary();
  const orm = await MikroORM.init({
    ensureDatabase: options.create ?? true,
    clientUrl: primary.url,
    entities,
    // The migrator and the migrations are loaded by migrate() alone: most processes that open
    // the database (a checking command, a test, a worker) never migrate, and loading them costs
    // about a second of CPU.
    migrations: { transactional: true, allOrNothing: true, snapshot: false, silent: true },
    discovery: { warnWhenNoEntities: false },
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      ...(locator.several ? { afterCreate: checkWrites(url) } : {}),
    },
    ...(locator.several ? { driverOptions: { connection: connectionOnPrimary(url) } } : {}),
    debug: false,
    allowGlobalContext: false,
    // The application owns every timestamp as timestamptz; no implicit local-time conversion.
    forceUtcTimezone: true,
  });
  if (locator.several) rememberFailoverUrl(orm, url);
  return orm;
}

/** Knex asks this for each new connection while the primary it got last is not forgotten. */
function connectionOnPrimary(url: string) {
  const locator = primaryLocator(url);
  return async () => {
    const host = await locator.primary();
    const generation = locator.generation;
    return {
      connectionString: host.url,
      types: ormLikeTypes,
      expirationChecker: () => locator.generation !== generation,
    };
  };
}

/** A new pool connection on a node that no longer takes writes is refused; a broken one makes the locator ask again. */
function checkWrites(url: string) {
  const locator = primaryLocator(url);
  return (connection: pg.Client, done: (error: Error | null, connection: pg.Client) => void) => {
    connection.on('error', () => locator.forget());
    connection.query<{ read_only: boolean }>(readOnlyQuery).then(
      ({ rows }) => {
        if (rows[0]?.read_only === false) return done(null, connection);
        locator.forget();
        done(
          Object.assign(new Error('The database node no longer takes writes'), { code: '08001' }),
          connection,
        );
      },
      (error: Error) => {
        locator.forget();
        done(error, connection);
      },
    );
  };
}

/** The ORM's migrator with pier's migrations, loaded and registered on the first call. */
async function migratorOf(orm: Orm) {
  const name = '@mikro-orm/migrator';
  if (!orm.config.getExtension(name)) {
    const [{ Migrator }, { migrationsList }] = await Promise.all([
      import('@mikro-orm/migrations'),
      import('./migrations/index.js'),
    ]);
    orm.config.set('migrations', { ...orm.config.get('migrations'), migrationsList });
    Migrator.register(orm);
  }
  return orm.migrator;
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
    // Most starts find nothing to do: said by one query, without loading the migrator (MikroORM's
    // migrations, umzug and their command-line modules, about 250 modules and 0.1 s of CPU).
    const recorded = await appliedMigrations(orm.em.fork());
    if (recorded && migrationNames.every((name) => recorded.includes(name))) return [];
    const applied = await (await migratorOf(orm)).up();
    return applied.map((m) => m.name);
  } finally {
    await lock.end();
  }
}
