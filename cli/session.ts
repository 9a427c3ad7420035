/** A short database session for one CLI command: connect, migrate, run, close. */
import { createApiContext } from '../api/create-context.js';
import type { ApiContext } from '../api/context.js';
import { loadSettings, storageOf } from '../api/resources/settings/service.js';
import type { Caller } from '../api/auth/caller.js';
import { readProcessOptions } from '../runtime/process-options.js';
import { connectDatabase } from '../storage/connect.js';
import { loadSecretBox } from '../runtime/secrets/secret-box.js';

/** Changes made from the command line are recorded as made by `system` (spec 2.15). */
export const cliCaller: Caller = { kind: 'developer', actor: 'system' };

export async function withSession<T>(work: (ctx: ApiContext) => Promise<T>): Promise<T> {
  const options = readProcessOptions();
  const database = await connectDatabase(options, { runMigrations: true });
  const ctx = createApiContext({
    orm: database.orm,
    options,
    secrets: await loadSecretBox(options.dataDir, options.secretKey),
    storageInUse: storageOf(await loadSettings(database.orm.em.fork())),
    developerBuild: false,
  });
  try {
    return await work(ctx);
  } finally {
    ctx.apiTokens.close();
    await ctx.announceAuthChange(database.orm.em.fork()).catch(() => {});
    await database.close();
  }
}
