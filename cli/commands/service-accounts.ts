/** `pier service-accounts create NAME [--description D]`. */
import { Command } from 'commander';
import { ServiceAccountCreate } from '../../api/schemas/service-account.js';
import { createServiceAccount } from '../../api/resources/service-accounts/service.js';
import { parseOrThrow } from '../../api/validation.js';
import { cliCaller, withSession } from '../session.js';

export function serviceAccountCommands(): Command {
  const accounts = new Command('service-accounts').description('Manage service accounts');
  accounts
    .command('create <name>')
    .description('Create a local service account (it can hold API tokens)')
    .option('--description <text>', 'what the account is for', '')
    .action((name: string, opts: { description: string }) =>
      withSession(async (ctx) => {
        const body = parseOrThrow(ServiceAccountCreate, { name, description: opts.description });
        const account = await createServiceAccount(ctx, cliCaller, body);
        console.log(`Created service account ${account.name}.`);
      }),
    );
  return accounts;
}
