/**
 * The file writer actor: delivers each claimed delivery as a file (see write.ts), on as many
 * threads as its `threads` setting says. The thread the supervisor starts cleans up what a crash
 * left and is ready; the others start meanwhile (threads.ts), running this same file with `thread` set.
 */
import { access, constants } from 'node:fs/promises';
import { makeDirectory } from '../shared/make-directory.js';
import { openActorStore } from '../shared/payload-store.js';
import { InitError, runActor } from '../../protocol/worker-host/host.js';
import { DeliveryLoop } from '../shared/delivery-loop.js';
import { deliveryPort } from '../shared/delivery-port.js';
import { parseSettings } from '../shared/settings.js';
import { slotsOf, threadCount } from '../shared/thread-count.js';
import { fileWriterType } from './config.js';
import { removeStaleTemporaries } from './temporaries.js';
import { FileWriter } from './write.js';
import { HandoffTaker } from './handoff.js';
import { WriterThreads } from './threads.js';

runActor(async (start, core) => {
  const settings = parseSettings(fileWriterType, start.settings);
  const first = start.thread === undefined;
  const threads = threadCount(settings.threads);
  try {
    await makeDirectory(settings.directory);
    await access(settings.directory, constants.W_OK);
  } catch (error) {
    throw new InitError(
      'DIRECTORY_UNUSABLE',
      `directory ${settings.directory} cannot be used: ${(error as Error).message}`,
    );
  }
  const store = openActorStore(start, core);
  const writer = new FileWriter(settings, store);
  const port = deliveryPort(start, core);
  const taker = new HandoffTaker(writer, settings.directory, start.flow?.node ?? 0, port);
  if (first) {
    // A crash (kill -9) between writing and cleaning up leaves temporaries; they go now, and the
    // deliveries of handed files that never got their names are queued again (logged once).
    // Before the other threads start: from then on, files in hand may be theirs.
    await taker.resolveLeftovers().catch(() => undefined);
    taker.sweepLeftovers();
    const removed = await removeStaleTemporaries(settings.directory).catch(() => 0);
    if (removed > 0) core.log('info', 'removed temporary files a crash left', { removed });
  }
  // The writer as a whole delivers at most max_concurrent_deliveries queued deliveries at once.
  const slots = slotsOf(settings.max_concurrent_deliveries, threads, start.thread ?? 1);
  const loop = slots > 0 ? new DeliveryLoop(port, slots, (d) => writer.deliver(d)) : null;
  const others = WriterThreads.startOthers(threads, new URL(import.meta.url), start, core, {
    working: `writing on ${threads} threads`,
    lost: 'a thread of the file writer was lost; the writer stops',
  });
  // Told of work only from now on: what was queued before it started waits for it too.
  if (!first) loop?.poke();
  return {
    onWork: () => {
      loop?.poke();
      others?.poke();
    },
    onHandoffFrom: (source, channel) =>
      taker.serve(channel, others ? (served) => others.spread(source, served) : undefined),
    async stop(withinMs) {
      const recorded = taker.stopping();
      await Promise.all([loop?.stop(), others?.stop(withinMs)]);
      await recorded;
      await port.close();
    },
  };
});
