/**
 * `pier init`: makes a data directory (PIER_DATA_DIR) ready for a server: the embedded
 * PostgreSQL (without DATABASE_URL) with its migrations, and the secret key (without
 * PIER_SECRET_KEY). Running it again changes nothing. Other commands refuse a data directory
 * that was never made, so that a mistyped PIER_DATA_DIR does not silently start an empty one.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { environment, withEnvironment } from '../env-help.js';
import { isVerbose } from '../session.js';
import { cliIo, say } from '../io.js';

export function initCommand(): Command {
  const command = new Command('init')
    .description('Make a data directory: the embedded database (without DATABASE_URL) and the secret key')
    .action(async () => {
      const [{ readProcessOptions }, { connectDatabase }, { loadSecretBox }] = await Promise.all([
        import('../../api/process-options.js'),
        import('../../storage/connect.js'),
        import('../../runtime/secrets/secret-box.js'),
      ]);
      const options = readProcessOptions(cliIo().env);
      const keyFile = path.join(options.dataDir, 'secret.key');
      const hadKey = options.secretKey !== undefined || existsSync(keyFile);
      const hadDatabase =
        options.databaseUrl !== undefined || existsSync(path.join(options.dataDir, 'postgres', 'PG_VERSION'));
      const database = await connectDatabase(options, { runMigrations: true });
      if (isVerbose()) cliIo().err(`pier: connected to ${database.description}\n`);
      try {
        await loadSecretBox(options.dataDir, options.secretKey);
      } finally {
        await database.close();
      }
      const made = [...(hadDatabase ? [] : ['the embedded database']), ...(hadKey ? [] : ['secret.key'])];
      say(
        made.length === 0
          ? `The data directory ${options.dataDir} is ready; nothing to do.`
          : `Made ${made.join(' and ')} in the data directory ${options.dataDir}.`,
      );
    });
  return withEnvironment(command, environment.session);
}
