/**
 * A short database session for one CLI command: connect, migrate, run, close. The heavy modules
 * (ORM, API services) load only here, so `pier --help` and `pier --version` answer at once.
 */
import { userInfo } from 'node:os';
import type { ApiContext } from '../api/context.js';
import type { Caller } from '../api/auth/caller.js';
import { cliIo } from './io.js';

/**
 * Who runs the command, as the audit log names them (docs/api/audit.md): `cli:<login>`, the
 * person behind sudo when there is one, so an entry made from a shell says who made it.
 */
export function cliActor(env: NodeJS.ProcessEnv = process.env): string {
  let login = env.SUDO_USER || '';
  if (!login) {
    try {
      login = userInfo().username;
    } catch {
      // no passwd entry for this uid (some containers)
      login = env.USER || env.LOGNAME || `uid ${process.getuid?.() ?? '?'}`;
    }
  }
  return `cli:${login}`;
}

/** Changes made from the command line are recorded under the local user who made them. */
export const cliCaller: Caller = { kind: 'developer', actor: cliActor() };

let verbose = false;
/** `--verbose`: say on stderr which database the command connected to. */
export function setVerbose(on: boolean): void {
  verbose = on;
}
export function isVerbose(): boolean {
  return verbose;
}

export async function withSession<T>(work: (ctx: ApiContext) => Promise<T>): Promise<T> {
  const [
    { createApiContext },
    { loadSettings, storageOf },
    { readProcessOptions },
    { connectDatabase },
    secretBox,
  ] = await Promise.all([
    import('../api/create-context.js'),
    import('../api/resources/settings/service.js'),
    import('../api/process-options.js'),
    import('../storage/connect.js'),
    import('../runtime/secrets/secret-box.js'),
  ]);
  const options = readProcessOptions(cliIo().env);
  // A mistyped PIER_DATA_DIR is refused rather than given a new, empty database.
  const database = await connectDatabase(options, { runMigrations: true, create: false });
  if (verbose) cliIo().err(`pier: connected to ${database.description}\n`);
  try {
    const ctx = createApiContext({
      orm: database.orm,
      options,
      secrets: await secretBox.loadSecretBox(options.dataDir, options.secretKey),
      storageInUse: storageOf(await loadSettings(database.orm.em.fork())),
      developerBuild: false,
    });
    try {
      return await work(ctx);
    } finally {
      ctx.apiTokens.close();
      // A running server drops its cached accounts and tokens, whatever the command changed.
      await ctx.announceAuthChange(database.orm.em.fork()).catch(() => {});
    }
  } finally {
    await database.close();
  }
}
