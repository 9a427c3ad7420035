/** `pier serve [--dev]`: run the server until SIGINT or SIGTERM. */
import { Command } from 'commander';
import { environment, withEnvironment } from '../env-help.js';
import { ReportedError } from '../args.js';
import { cliIo } from '../io.js';

export function serveCommand(): Command {
  const command = new Command('serve')
    .description('Run the pier server (API, web UI and plugin instances)')
    .option('--dev', 'developer build: requests without Authorization act as user "developer"')
    .action(async (opts: { dev?: boolean }) => {
      const [{ readProcessOptions }, { startServer, defaultLogger }] = await Promise.all([
        import('../../runtime/process-options.js'),
        import('../../api/server.js'),
      ]);
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
      logger.info({ url: server.url, developerBuild }, 'pier is serving');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      logger.info('pier is stopping');
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
