/** `pier migrate`: apply pending database migrations and exit. */
import { Command } from 'commander';
import { environment, withEnvironment } from '../env-help.js';
import { isVerbose } from '../session.js';
import { cliIo, say } from '../io.js';

export function migrateCommand(): Command {
  const command = new Command('migrate').description('Apply pending database migrations').action(async () => {
    const [{ readProcessOptions }, { connectDatabase }, { migrate }] = await Promise.all([
      import('../../api/process-options.js'),
      import('../../storage/connect.js'),
      import('../../storage/db.js'),
    ]);
    const database = await connectDatabase(readProcessOptions(cliIo().env), { runMigrations: false });
    if (isVerbose()) cliIo().err(`pier: connected to ${database.description}\n`);
    try {
      const applied = await migrate(database.orm);
      say(applied.length === 0 ? 'The database is up to date.' : `Applied: ${applied.join(', ')}`);
    } finally {
      await database.close();
    }
  });
  return withEnvironment(command, environment.database);
}
