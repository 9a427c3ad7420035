/**
 * `pier users passwd NAME` and `pier users role NAME ROLE`. The password is read from standard
 * input (the first line), never from the command line where `ps` and shell history would keep it.
 * A name nobody has yet becomes a local administrator: the way into a new install.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { setUserPassword, setUserRole } from '../../api/resources/users/service.js';
import { cliCaller, withSession } from '../session.js';

async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('New password (at least 12 characters): ');
  const lines = createInterface({ input: process.stdin, terminal: false });
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
        const { created } = await setUserPassword(ctx, cliCaller, name, password);
        console.log(created ? `Added administrator ${name} with a password.` : `Password of ${name} set.`);
      });
    });
  users
    .command('role <name> <role>')
    .description('Set the role of a user: admin, operator or viewer')
    .action((name: string, role: string) =>
      withSession(async (ctx) => {
        await setUserRole(ctx, cliCaller, name, role);
        console.log(`User ${name} has the role ${role}.`);
      }),
    );
  return users;
}
