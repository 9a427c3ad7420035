/** `pier migrate`: apply pending database migrations and exit. */
import { Command } from 'commander';
import { readProcessOptions } from '../../runtime/process-options.js';
import { connectDatabase } from '../../storage/connect.js';
import { migrate } from '../../storage/db.js';

export function migrateCommand(): Command {
  return new Command('migrate').description('Apply pending database migrations').action(async () => {
    const database = await connectDatabase(readProcessOptions(), { runMigrations: false });
    try {
      const applied = await migrate(database.orm);
      console.log(applied.length === 0 ? 'The database is up to date.' : `Applied: ${applied.join(', ')}`);
    } finally {
      await database.close();
    }
  });
}
