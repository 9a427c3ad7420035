/** The SFTP sender actor: delivers each claimed delivery as a file on the partner's server (see send.ts). */
import { runActor } from '../../protocol/worker-host/host.js';
import { openActorStore } from '../shared/payload-store.js';
import { DeliveryLoop } from '../shared/delivery-loop.js';
import { deliveryPort } from '../shared/delivery-port.js';
import { ReachTeller } from '../shared/reach-teller.js';
import { parseSettings } from '../shared/settings.js';
import type { SftpSecrets } from '../sftp-shared/fields.js';
import { startSessions } from '../sftp-shared/start.js';
import { sftpSenderType } from './config.js';
import { SftpSender } from './send.js';

runActor(async (start, core) => {
  const settings = parseSettings(sftpSenderType, start.settings);
  const secrets = start.secrets as SftpSecrets;
  const sessions = await startSessions(settings, secrets, core);
  const sender = new SftpSender(settings, openActorStore(start, core), sessions);
  const port = deliveryPort(start, core);
  const reach = new ReachTeller(core);
  const loop = new DeliveryLoop(port, settings.max_concurrent_deliveries, (d) =>
    reach.watch(d, sender.deliver(d)),
  );
  return {
    onWork: () => loop.poke(),
    async stop() {
      await loop.stop();
      await port.close();
      sessions.close();
    },
  };
});
