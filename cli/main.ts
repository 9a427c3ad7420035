/**
 * The `pier` command. Every command reads DATABASE_URL / PIER_DATA_DIR like the server (so it
 * finds the same database), prints what went wrong in words, and exits 0 on success, 1 on a
 * failure, 2 on wrong usage. Command modules load their heavy parts only when they run.
 */
import { Command, CommanderError } from 'commander';
import { ApiError } from '../api/errors.js';
import { serviceVersion } from '../runtime/version.js';
import { ReportedError, UsageError } from './args.js';
import { apiTokenCommands } from './commands/api-tokens.js';
import { benchCommand } from './commands/bench.js';
import { configCommands } from './commands/config.js';
import { doctorCommand } from './commands/doctor.js';
import { messageCommands } from './commands/messages.js';
import { initCommand } from './commands/init.js';
import { migrateCommand } from './commands/migrate.js';
import { serveCommand } from './commands/serve.js';
import { serviceAccountCommands } from './commands/service-accounts.js';
import { settingsCommands } from './commands/settings.js';
import { storageCommands } from './commands/storage.js';
import { userCommands } from './commands/users.js';
import { addUserPasswordCommands } from './commands/user-passwords.js';
import { setVerbose } from './session.js';
import { cliIo, processIo, withIo, type CliIo } from './io.js';

export const exitCodes = { success: 0, failure: 1, usage: 2 } as const;

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
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(describeError).join('; ');
  }
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  // Some libraries reject with nothing at all; never print "undefined".
  return error === undefined ? 'failed without saying why' : String(error);
}

export function buildProgram(): Command {
  const program = new Command('pier')
    .description('Pier: B2B message exchange (AS2, file and HTTP connectors)')
    .version(serviceVersion)
    .option('--verbose', 'say which database the command connected to (on stderr)')
    .exitOverride()
    .showHelpAfterError()
    .addHelpText(
      'after',
      '\nExit codes: 0 success, 1 failure, 2 wrong usage. `pier <command> --help` lists the environment variables a command reads.\n',
    );
  program.hook('preAction', (_program, action) => setVerbose(action.optsWithGlobals().verbose === true));
  for (const command of [
    serveCommand(),
    initCommand(),
    migrateCommand(),
    addUserPasswordCommands(userCommands()),
    serviceAccountCommands(),
    apiTokenCommands(),
    messageCommands(),
    settingsCommands(),
    configCommands(),
    storageCommands(),
    doctorCommand(),
    benchCommand(),
  ]) {
    program.addCommand(command);
  }
  // Subcommands exit through the same path as the program (exit codes below) and write where
  // the command's output goes (a test's buffers when run in-process).
  const override = (command: Command) => {
    command.exitOverride();
    command.configureOutput({ writeOut: (text) => cliIo().out(text), writeErr: (text) => cliIo().err(text) });
    command.commands.forEach(override);
  };
  override(program);
  return program;
}

/** Runs one `pier` command; `io` is the process's own streams and environment unless given. */
export function main(argv: string[], io: CliIo = processIo): Promise<number> {
  return withIo(io, () => run(argv));
}

async function run(argv: string[]): Promise<number> {
  const { installErrorMessages } = await import('../api/schemas/messages.js');
  installErrorMessages();
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCodes.success;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return error.exitCode === 0 ? exitCodes.success : exitCodes.usage;
    }
    if (!(error instanceof ReportedError)) cliIo().err(`pier: ${describeError(error)}\n`);
    return error instanceof UsageError ? exitCodes.usage : exitCodes.failure;
  }
}
