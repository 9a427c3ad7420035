/** What `pier bench self` does with its options: finds this install's database server, then benchSelf. */
import { readProcessOptions } from '../../api/process-options.js';
import { identification } from '../../runtime/index.js';
import { connectDatabase } from '../../storage/connect.js';
import type { CommonOptions } from './options.js';
import { cliIo } from '../io.js';
import { progressOn } from './render-text.js';
import { benchSelf, type SelfResult } from './self.js';

export async function runSelf(opts: CommonOptions & { drainTimeout: number }): Promise<SelfResult> {
  const io = cliIo();
  const options = readProcessOptions(io.env);
  // The install's server: DATABASE_URL's, or its embedded one (started here when it is not running).
  const install = await connectDatabase(options, { runMigrations: false, create: false });
  try {
    return await benchSelf({
      adminUrl: install.url,
      concurrencies: opts.concurrency,
      connections: opts.connections,
      messages: opts.messages,
      durationS: opts.duration ?? null,
      warmUp: opts.warmUp,
      size: opts.size,
      timeoutS: opts.timeout,
      drainS: opts.drainTimeout,
      userAgent: identification(false),
      log: (line) => io.err(`${line}\n`),
      progress: progressOn(io.err, io.errIsTty),
    });
  } finally {
    await install.close();
  }
}
