/** The file writer actor: delivers each claimed delivery as a file (see write.ts). */
import { access, constants } from 'node:fs/promises';
import { makeDirectory } from '../shared/make-directory.js';
import { openActorStore } from '../shared/payload-store.js';
import { InitError, runActor } from '../../protocol/worker-host/host.js';
import { DeliveryLoop } from '../shared/delivery-loop.js';
import { deliveryPort } from '../shared/delivery-port.js';
import { parseSettings } from '../shared/settings.js';
import { fileWriterType, type FileWriterSettings } from './config.js';
import { removeStaleTemporaries } from './temporaries.js';
import { FileWriter } from './write.js';
import { HandoffTaker } from './handoff.js';

runActor(async (start, core) => {
  const settings = parseSettings<FileWriterSettings>(fileWriterType, start.settings);
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
  // A crash (kill -9) between writing and cleaning up leaves temporaries; they go now, and the
  // deliveries of handed files that never got their names are queued again (logged once).
  await taker.resolveLeftovers().catch(() => undefined);
  taker.sweepLeftovers();
  const removed = await removeStaleTemporaries(settings.directory).catch(() => 0);
  if (removed > 0) core.log('info', 'removed temporary files a crash left', { removed });
  const loop = new DeliveryLoop(port, settings.max_concurrent_deliveries, (d) => writer.deliver(d));
  return {
    onWork: () => loop.poke(),
    onHandoffFrom: (_source, channel) => taker.serve(channel),
    async stop() {
      const recorded = taker.stopping();
      await loop.stop();
      await recorded;
      await port.close();
    },
  };
});
