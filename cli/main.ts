/**
 * The `pier` command. Every command reads DATABASE_URL / PIER_DATA_DIR like the server,
 * prints what went wrong in words, and exits non-zero on failure.
 */
import { Command, CommanderError } from 'commander';
import { ApiError } from '../api/errors.js';
import { installErrorMessages } from '../api/schemas/messages.js';
import { serviceVersion } from '../runtime/version.js';
import { apiTokenCommands } from './commands/api-tokens.js';
import { migrateCommand } from './commands/migrate.js';
import { serveCommand } from './commands/serve.js';
import { serviceAccountCommands } from './commands/service-accounts.js';
import { userCommands } from './commands/users.js';
import { addUserPasswordCommands } from './commands/user-passwords.js';

/** Text for an error the user can act on; validation details name the field. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const details = error.details
      ? Object.entries(error.details)
          .map(([k, v]) => (k === '_form' ? String(v) : `${k}: ${String(v)}`))
          .join('; ')
      : '';
    return details ? `${error.message}: ${details}` : error.message;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

export function buildProgram(): Command {
  const program = new Command('pier')
    .description('Pier: B2B message exchange (AS2, file and HTTP connectors)')
    .version(serviceVersion)
    .exitOverride()
    .showHelpAfterError();
  program.addCommand(serveCommand());
  program.addCommand(migrateCommand());
  program.addCommand(addUserPasswordCommands(userCommands()));
  program.addCommand(serviceAccountCommands());
  program.addCommand(apiTokenCommands());
  return program;
}

export async function main(argv: string[]): Promise<number> {
  installErrorMessages();
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`pier: ${describeError(error)}\n`);
    return 1;
  }
}
