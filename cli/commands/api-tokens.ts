/** `pier api-tokens create|list|revoke`: create prints the new token's value alone on stdout, for scripts. */
import { Command } from 'commander';
import { wholeNumber } from '../args.js';
import { environment, withEnvironment } from '../env-help.js';
import { cliCaller, withSession } from '../session.js';
import { cliIo, say } from '../io.js';

export function apiTokenCommands(): Command {
  const tokens = new Command('api-tokens').description('Manage API tokens');
  withEnvironment(
    tokens
      .command('create')
      .description('Create an API token for a local service account; prints the token')
      .requiredOption('--service-account <name>', 'the local service account')
      .requiredOption('--label <label>', 'what the token is for (1 to 64 characters)')
      .option('--expires-in-days <days>', 'days until it expires (1 to 365)', wholeNumber, 90)
      .action((opts: { serviceAccount: string; label: string; expiresInDays: number }) =>
        withSession(async (ctx) => {
          const [{ ApiTokenCreate }, { createApiToken }, { parseOrThrow }] = await Promise.all([
            import('../../api/schemas/api-token.js'),
            import('../../api/resources/api-tokens/service.js'),
            import('../../api/validation.js'),
          ]);
          const body = parseOrThrow(ApiTokenCreate, {
            service_account: opts.serviceAccount,
            label: opts.label,
            expires_in_days: opts.expiresInDays,
          });
          const created = await createApiToken(ctx, cliCaller, body);
          cliIo().out(`${created.token}\n`);
        }),
      ),
    environment.session,
  );
  withEnvironment(
    tokens
      .command('list')
      .description('List API tokens (never their values): id, account, label, state, expiry, last use')
      .action(() =>
        withSession(async (ctx) => {
          const [{ listApiTokens }, { freshEm }] = await Promise.all([
            import('../../api/resources/api-tokens/service.js'),
            import('../../api/context.js'),
          ]);
          const page = await listApiTokens(ctx, freshEm(ctx), { limit: 1000, offset: 0 });
          if (page.items.length === 0) say('No API tokens.');
          for (const t of page.items) {
            say(
              [t.id, t.service_account, t.label, t.state, t.expires_at, t.last_used_at ?? 'never used'].join(
                '\t',
              ),
            );
          }
        }),
      ),
    environment.session,
  );
  withEnvironment(
    tokens
      .command('revoke <id>')
      .description('Revoke an API token by its id (see api-tokens list)')
      .action((id: string) =>
        withSession(async (ctx) => {
          const { revokeApiToken } = await import('../../api/resources/api-tokens/service.js');
          await revokeApiToken(ctx, cliCaller, wholeNumber(id));
          say(`API token ${id} is revoked.`);
        }),
      ),
    environment.session,
  );
  return tokens;
}
