/** The program runner actor: runs its program for each claimed delivery (see deliver.ts). */
import { access, constants } from 'node:fs/promises';
import { InitError, runActor } from '../../protocol/worker-host/host.js';
import { makeDirectory } from '../shared/make-directory.js';
import { DeliveryLoop } from '../shared/delivery-loop.js';
import { deliveryPort } from '../shared/delivery-port.js';
import { openActorStore } from '../shared/payload-store.js';
import { parseSettings } from '../shared/settings.js';
import { programRunnerType, type ProgramRunnerSecrets } from './config.js';
import { ProgramRunner } from './deliver.js';

runActor(async (start, core) => {
  const settings = parseSettings(programRunnerType, start.settings);
  try {
    await makeDirectory(settings.work_directory);
    await access(settings.work_directory, constants.W_OK);
  } catch (error) {
    throw new InitError(
      'DIRECTORY_UNUSABLE',
      `work directory ${settings.work_directory} cannot be used: ${(error as Error).message}`,
    );
  }
  try {
    await access(settings.program, constants.X_OK);
  } catch (error) {
    throw new InitError(
      'PROGRAM_UNUSABLE',
      `program ${settings.program} cannot be run: ${(error as Error).message}`,
    );
  }
  const runner = new ProgramRunner(
    settings,
    start.secrets as ProgramRunnerSecrets,
    openActorStore(start, core),
  );
  const port = deliveryPort(start, core);
  const loop = new DeliveryLoop(port, settings.max_concurrent_deliveries, (d) => runner.deliver(d));
  return {
    onWork: () => loop.poke(),
    async stop() {
      await loop.stop();
      await port.close();
    },
  };
});
