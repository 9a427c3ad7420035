/** `pier service-accounts create|list|disable|enable|delete`: accounts that hold API tokens or sign in by OIDC. */
import { Command } from 'commander';
import type { ApiContext } from '../../api/context.js';
import { environment, withEnvironment } from '../env-help.js';
import { cliCaller, withSession } from '../session.js';
import { say } from '../io.js';

/** The account's id from its name (the API addresses accounts by id, operators by name). */
async function idOf(ctx: ApiContext, name: string): Promise<number> {
  const [{ findAccountByName }, { freshEm }, { notFound }] = await Promise.all([
    import('../../api/resources/service-accounts/service.js'),
    import('../../api/context.js'),
    import('../../api/errors.js'),
  ]);
  const account = await findAccountByName(freshEm(ctx), name);
  if (!account) throw notFound(`Service account ${name}`);
  return account.id;
}

export function serviceAccountCommands(): Command {
  const accounts = new Command('service-accounts').description('Manage service accounts');
  withEnvironment(
    accounts
      .command('create <name>')
      .description('Create a local service account (it can hold API tokens)')
      .option('--description <text>', 'what the account is for', '')
      .action((name: string, opts: { description: string }) =>
        withSession(async (ctx) => {
          const [{ ServiceAccountCreate }, { createServiceAccount }, { parseOrThrow }] = await Promise.all([
            import('../../api/schemas/service-account.js'),
            import('../../api/resources/service-accounts/service.js'),
            import('../../api/validation.js'),
          ]);
          const body = parseOrThrow(ServiceAccountCreate, { name, description: opts.description });
          const account = await createServiceAccount(ctx, cliCaller, body);
          say(`Created service account ${account.name}.`);
        }),
      ),
    environment.session,
  );
  withEnvironment(
    accounts
      .command('list')
      .description('List service accounts: name, kind, enabled or disabled, last use, description')
      .action(() =>
        withSession(async (ctx) => {
          const [{ listServiceAccounts }, { freshEm }] = await Promise.all([
            import('../../api/resources/service-accounts/service.js'),
            import('../../api/context.js'),
          ]);
          const page = await listServiceAccounts(ctx, freshEm(ctx), { limit: 1000, offset: 0 });
          if (page.items.length === 0) say('No service accounts.');
          for (const a of page.items) {
            const state = a.enabled ? 'enabled' : 'disabled';
            say([a.name, a.kind, state, a.last_used_at ?? 'never used', a.description].join('\t'));
          }
        }),
      ),
    environment.session,
  );
  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    withEnvironment(
      accounts
        .command(`${verb} <name>`)
        .description(
          enabled
            ? 'Enable a service account: its tokens work again'
            : 'Disable a service account: its tokens stop working until it is enabled',
        )
        .action((name: string) =>
          withSession(async (ctx) => {
            const { updateServiceAccount } = await import('../../api/resources/service-accounts/service.js');
            await updateServiceAccount(ctx, cliCaller, await idOf(ctx, name), { enabled });
            say(`Service account ${name} is ${enabled ? 'enabled' : 'disabled'}.`);
          }),
        ),
      environment.session,
    );
  }
  withEnvironment(
    accounts
      .command('delete <name>')
      .description('Delete a service account; its API tokens are revoked')
      .action((name: string) =>
        withSession(async (ctx) => {
          const { deleteServiceAccount } = await import('../../api/resources/service-accounts/service.js');
          await deleteServiceAccount(ctx, cliCaller, await idOf(ctx, name));
          say(`Deleted service account ${name}.`);
        }),
      ),
    environment.session,
  );
  return accounts;
}
