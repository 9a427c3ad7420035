/**
 * `pier storage migrate --to s3|local`. The copy itself (storage-migrate.ts) loads only when the
 * command runs: it brings the S3 client, which costs every other `pier` call most of a second.
 */
import { Command, Option } from 'commander';
import type { Backend } from './storage-migrate.js';

export function storageCommands(): Command {
  const storage = new Command('storage').description('Payload storage');
  storage
    .command('migrate')
    .description(
      'Copy every stored stage from the other store to the saved one (storage_backend), verifying each copy; resumable',
    )
    .addOption(
      new Option('--to <backend>', 'the saved store to copy into')
        .choices(['s3', 'local'])
        .makeOptionMandatory(),
    )
    .action(async (opts: { to: Backend }) => {
      const { migrateStorage } = await import('./storage-migrate.js');
      await migrateStorage(opts.to);
    });
  return storage;
}
