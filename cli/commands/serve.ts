/** `pier serve [--dev]`: run the server until SIGINT or SIGTERM. */
import { Command } from 'commander';
import { readProcessOptions } from '../../runtime/process-options.js';
import { startServer } from '../../api/server.js';

export function serveCommand(): Command {
  return new Command('serve')
    .description('Run the pier server (API, web UI and plugin instances)')
    .option('--dev', 'developer build: requests without Authorization act as user "developer"')
    .action(async (opts: { dev?: boolean }) => {
      const server = await startServer({ options: readProcessOptions(), developerBuild: opts.dev === true });
      server.app.log.info({ url: server.url, developerBuild: opts.dev === true }, 'pier is serving');
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      server.app.log.info('pier is stopping');
      await server.close();
    });
}
