/** `pier serve [--dev]`: run the server until SIGINT or SIGTERM. */
import path from 'node:path';
import { Command } from 'commander';
import type { Logger } from 'pino';
import { environment, withEnvironment } from '../env-help.js';
import { ReportedError } from '../args.js';
import { cliIo } from '../io.js';
import { consoleBanner } from '../console-banner.js';
import { limits } from '../../limits/limits.js';

export function serveCommand(): Command {
  const command = new Command('serve')
    .description('Run the pier server (API, web UI and plugin instances)')
    .option('--dev', 'developer build: requests without Authorization act as user "developer"')
    .action(async (opts: { dev?: boolean }) => {
      const [
        { readProcessOptions },
        { startServer, defaultLogger },
        { setInitialOldSpace, setTurbofanThreshold },
      ] = await Promise.all([
        import('../../api/process-options.js'),
        import('../../api/server.js'),
        import('../../runtime/index.js'),
      ]);
      setInitialOldSpace();
      setTurbofanThreshold();
      const logger = defaultLogger();
      const developerBuild = opts.dev === true;
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer({ options: readProcessOptions(cliIo().env), developerBuild, logger });
      } catch (error) {
        // Operators read the log: the reason is one JSON line like every other, at level fatal.
        logger.fatal({ err: error }, `pier could not start: ${(error as Error).message}`);
        throw new ReportedError();
      }
      // Before a client can learn that pier serves: a signal from then on is an orderly stop.
      const stopRequested = stopSignals(logger);
      logger.info({ url: server.url, developerBuild }, 'pier is serving');
      const setup = server.ctx.setupCode;
      if (setup?.value) {
        const page = `${server.ctx.options.publicUrl}/ui/setup`;
        // The code itself never goes to the log (a secret); the console banner shows it to a person.
        logger.info(
          { page, setup_code_file: setup.file },
          `no user exists yet: create the first administrator at ${page} with the setup code in ${setup.file}`,
        );
      }
      if (process.stdout.isTTY)
        process.stdout.write(
          consoleBanner({
            uiUrl: server.ctx.options.publicUrl,
            dataDir: path.resolve(server.ctx.options.dataDir),
            ...(setup?.value ? { setup: { code: setup.value, file: setup.file } } : {}),
            developerBuild,
          }),
        );
      const first = await stopRequested;
      logger.info(
        { signal: first, shutdownTimeoutSeconds: server.ctx.options.shutdownTimeoutMs / 1000 },
        'pier is stopping: work in hand finishes, new work is refused',
      );
      await server.close();
      const unended = server.ctx.runtime?.unendedThreads() ?? 0;
      if (unended > 0) {
        // Node joins every thread before the process may exit, even on process.exit; a thread
        // stuck in native code would keep pier alive for ever, so the process ends itself hard.
        logger.fatal(
          { threads: unended },
          'pier stopped, but actor threads would not end: killing the process',
        );
        process.kill(process.pid, 'SIGKILL');
      }
      logger.info('pier stopped');
    });
  return withEnvironment(command, environment.serve);
}

/**
 * Resolves with the first SIGINT or SIGTERM; a later one (not the same request) ends the process
 * at once. Nothing acknowledged is lost then: a message is answered, a file removed or a delivery
 * reported only after its rows committed; what was under way is offered again by its sender or
 * taken up by the next process.
 *
 * One listener, never removed: a signal with no listener gets its default action back, and the
 * second of the pair above, arriving after a `once` listener had gone and before the next was
 * added, killed pier outright on a loaded machine (no stop logged, its embedded PostgreSQL left
 * running; shown by two signals 100 ms apart around a 300 ms pause in that gap).
 */
function stopSignals(logger: Logger): Promise<NodeJS.Signals> {
  let firstAt: number | undefined;
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      if (firstAt === undefined) {
        firstAt = Date.now();
        resolve(signal);
        return;
      }
      if (Date.now() - firstAt < limits.sameSignalWithinMs) return;
      logger.warn({ signal }, 'pier is stopping at once (a second signal): work in hand is abandoned');
      // 128 + the signal's number, as a shell reports a process ended by it.
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
