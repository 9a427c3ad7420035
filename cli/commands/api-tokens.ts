/** `pier api-tokens create`: prints the new token's value alone on stdout, for scripts. */
import { Command } from 'commander';
import { ApiTokenCreate } from '../../api/schemas/api-token.js';
import { createApiToken } from '../../api/resources/api-tokens/service.js';
import { parseOrThrow } from '../../api/validation.js';
import { wholeNumber } from '../args.js';
import { cliCaller, withSession } from '../session.js';

export function apiTokenCommands(): Command {
  const tokens = new Command('api-tokens').description('Manage API tokens');
  tokens
    .command('create')
    .description('Create an API token for a local service account; prints the token')
    .requiredOption('--service-account <name>', 'the local service account')
    .requiredOption('--label <label>', 'what the token is for (1 to 64 characters)')
    .option('--expires-in-days <days>', 'days until it expires (1 to 365)', wholeNumber, 90)
    .action((opts: { serviceAccount: string; label: string; expiresInDays: number }) =>
      withSession(async (ctx) => {
        const body = parseOrThrow(ApiTokenCreate, {
          service_account: opts.serviceAccount,
          label: opts.label,
          expires_in_days: opts.expiresInDays,
        });
        const created = await createApiToken(ctx, cliCaller, body);
        process.stdout.write(`${created.token}\n`);
      }),
    );
  return tokens;
}
