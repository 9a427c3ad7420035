/**
 * The file poller actor: looks at its directory every polling_interval seconds (see poller.ts), on
 * as many threads as its `threads` setting says, each taking its share of the files (share.ts)
 * with its own database connections. The thread the supervisor starts is ready first and starts
 * the others (actors/shared/instance-threads.ts), running this same file with `thread` set.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { makeDirectory } from '../shared/make-directory.js';
import { InitError, runActor } from '../../protocol/worker-host/host.js';
import { openActorStore } from '../shared/payload-store.js';
import { acceptancePort, withAcceptance } from '../shared/acceptance-port.js';
import { parseSettings } from '../shared/settings.js';
import { filePollerType } from './config.js';
import { FilePoller } from './poller.js';
import { shareOf } from './share.js';
import { InstanceThreads } from '../shared/instance-threads.js';
import { threadCount } from '../shared/thread-count.js';

runActor(async (start, core) => {
  const settings = parseSettings(filePollerType, start.settings);
  const base = await stat(settings.base_directory).catch((error: Error) => {
    throw new InitError(
      'DIRECTORY_UNUSABLE',
      `base_directory ${settings.base_directory} cannot be read: ${error.message}`,
    );
  });
  if (!base.isDirectory()) {
    throw new InitError('DIRECTORY_UNUSABLE', `base_directory ${settings.base_directory} is not a directory`);
  }
  try {
    await access(settings.base_directory, constants.R_OK | constants.W_OK);
    await makeDirectory(settings.processed_directory);
    await access(settings.processed_directory, constants.W_OK);
  } catch (error) {
    throw new InitError('DIRECTORY_UNUSABLE', `the directories cannot be used: ${(error as Error).message}`);
  }
  const threads = threadCount(settings.threads);
  const acceptances = acceptancePort(start, core);
  const poller = new FilePoller(
    settings,
    openActorStore(start, core),
    withAcceptance(core, acceptances),
    acceptances.storedOf,
    shareOf(threads, start.thread ?? 1),
  );
  const others = InstanceThreads.startOthers(threads, new URL(import.meta.url), start, core, {
    working: `taking files on ${threads} threads`,
    lost: 'a thread of the file poller was lost; the poller stops',
  });
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let scanning: Promise<unknown> = Promise.resolve();
  // A look starts every polling_interval seconds, counted from the start of the one before;
  // when taking files took longer than that, the next look follows at once.
  let lastStart = Date.now();
  const next = () => {
    if (stopped) return;
    const wait = Math.max(0, lastStart + settings.polling_interval * 1000 - Date.now());
    timer = setTimeout(() => {
      lastStart = Date.now();
      scanning = poller
        .scan()
        .catch((error: unknown) =>
          core.log('error', 'looking at the directory failed', { error: String(error) }),
        )
        .finally(next);
    }, wait);
  };
  // The first look only notes what is there; files are taken from the second on.
  scanning = poller
    .scan()
    .catch(() => {})
    .finally(next);
  return {
    async stop(withinMs) {
      stopped = true;
      poller.halt();
      clearTimeout(timer);
      await Promise.all([scanning, others?.stop(withinMs)]);
      await acceptances.close();
    },
  };
});
