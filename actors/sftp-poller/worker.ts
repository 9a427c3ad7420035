/** The SFTP poller actor: looks at the remote directory every polling_interval seconds (see poller.ts). */
import { runActor } from '../../protocol/worker-host/host.js';
import { openActorStore } from '../shared/payload-store.js';
import { acceptancePort, withAcceptance } from '../shared/acceptance-port.js';
import { parseSettings } from '../shared/settings.js';
import type { SftpSecrets } from '../sftp-shared/fields.js';
import { startSessions } from '../sftp-shared/start.js';
import { sftpPollerType } from './config.js';
import { SftpPoller } from './poller.js';

runActor(async (start, core) => {
  const settings = parseSettings(sftpPollerType, start.settings);
  const secrets = start.secrets as SftpSecrets;
  const sessions = await startSessions(settings, secrets, core);
  const acceptances = acceptancePort(start, core);
  const poller = new SftpPoller(
    settings,
    openActorStore(start, core),
    withAcceptance(core, acceptances),
    sessions,
    acceptances.storedOf,
  );
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let scanning: Promise<unknown> = Promise.resolve();
  // The server's failures are logged once until a look works again, not once per look.
  let failing = '';
  // A look starts every polling_interval seconds, counted from the start of the one before.
  let lastStart = Date.now();
  const look = () =>
    poller
      .scan()
      .then(() => {
        if (failing) core.log('info', 'the SFTP server answers again', { host: settings.host });
        failing = '';
      })
      .catch((error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        if (text !== failing) core.log('error', 'looking at the remote directory failed', { error: text });
        failing = text;
      });
  const next = () => {
    if (stopped) return;
    const wait = Math.max(0, lastStart + settings.polling_interval * 1000 - Date.now());
    timer = setTimeout(() => {
      lastStart = Date.now();
      scanning = look().finally(next);
    }, wait);
  };
  // The first look only notes what is there; files are taken from the second on.
  scanning = look().finally(next);
  return {
    async stop() {
      stopped = true;
      poller.halt();
      clearTimeout(timer);
      await scanning;
      await acceptances.close();
      sessions.close();
    },
  };
});
