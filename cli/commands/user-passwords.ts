/**
 * `pier users passwd NAME` and `pier users role NAME ROLE`. The password is read from standard
 * input (the first line), never from the command line where `ps` and shell history would keep it.
 * A name nobody has yet becomes a local administrator: the way into a new install.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { cliCaller, withSession } from '../session.js';
import { cliIo, say } from '../io.js';

/** The users service loads when a command runs, not with every `pier` call. */
const service = () => import('../../api/resources/users/service.js');

async function readPassword(): Promise<string> {
  const io = cliIo();
  if (io.stdin.isTTY) io.err('New password (at least 12 characters): ');
  const lines = createInterface({ input: io.stdin, terminal: false });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return '';
}

export function addUserPasswordCommands(users: Command): Command {
  users
    .command('passwd <name>')
    .description('Set the local password of a user from standard input; a new name becomes an administrator')
    .action(async (name: string) => {
      const password = await readPassword();
      await withSession(async (ctx) => {
        const { setUserPassword } = await service();
        const { created } = await setUserPassword(ctx, cliCaller, name, password);
        say(created ? `Added administrator ${name} with a password.` : `Password of ${name} set.`);
      });
    });
  users
    .command('role <name> <role>')
    .description('Set the role of a user: admin, operator or viewer')
    .action((name: string, role: string) =>
      withSession(async (ctx) => {
        const { setUserRole } = await service();
        await setUserRole(ctx, cliCaller, name, role);
        say(`User ${name} has the role ${role}.`);
      }),
    );
  return users;
}
