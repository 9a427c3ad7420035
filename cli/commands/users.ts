/** `pier users add|list|enable|disable|remove`: people who sign in to the web UI. */
import { Command } from 'commander';
import { environment, withEnvironment } from '../env-help.js';
import { cliCaller, withSession } from '../session.js';
import { say } from '../io.js';

const service = () => import('../../api/resources/users/service.js');

export function userCommands(): Command {
  const users = new Command('users').description('Manage the people who sign in to the web UI');
  users
    .command('add <name>')
    .description('Add a user')
    .option('--issuer <url>', 'OIDC issuer URL of the user’s identity provider')
    .option('--subject <sub>', 'the user’s subject (sub) at that provider')
    .action((name: string, opts: { issuer?: string; subject?: string }) =>
      withSession(async (ctx) => {
        const { addUser } = await service();
        const user = await addUser(ctx, cliCaller, {
          name,
          ...(opts.issuer ? { oidc_issuer: opts.issuer } : {}),
          ...(opts.subject ? { oidc_subject: opts.subject } : {}),
        });
        say(`Added user ${user.name}.`);
      }),
    );
  users
    .command('list')
    .description('List users')
    .action(() =>
      withSession(async (ctx) => {
        const { listUsers } = await service();
        const rows = await listUsers(ctx.orm.em.fork());
        if (rows.length === 0) say('No users.');
        for (const u of rows) {
          const identity = u.oidc_issuer ? `${u.oidc_issuer} ${u.oidc_subject}` : '-';
          say(`${u.name}\t${u.enabled ? 'enabled' : 'disabled'}\t${identity}`);
        }
      }),
    );
  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    users
      .command(`${verb} <name>`)
      .description(`${verb === 'enable' ? 'Enable' : 'Disable'} a user`)
      .action((name: string) =>
        withSession(async (ctx) => {
          const { setUserEnabled } = await service();
          await setUserEnabled(ctx, cliCaller, name, enabled);
          say(`User ${name} is ${enabled ? 'enabled' : 'disabled'}.`);
        }),
      );
  }
  users
    .command('remove <name>')
    .description('Remove a user')
    .action((name: string) =>
      withSession(async (ctx) => {
        const { removeUser } = await service();
        await removeUser(ctx, cliCaller, name);
        say(`Removed user ${name}.`);
      }),
    );
  for (const command of users.commands) withEnvironment(command, environment.session);
  return users;
}
