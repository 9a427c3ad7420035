/** The AS2 sender actor: sends each claimed delivery to the partner (see send.ts). */
import { runActor } from '../../protocol/worker-host/host.js';
import { openPayloadStore } from '../../storage/payloads/open-store.js';
import { DeliveryLoop } from '../shared/delivery-loop.js';
import { parseSettings } from '../shared/settings.js';
import { as2SenderType, type As2SenderSettings } from './config.js';
import { As2Sender } from './send.js';

runActor(async (start, core) => {
  const settings = parseSettings<As2SenderSettings>(as2SenderType, start.settings);
  const sender = new As2Sender(settings, openPayloadStore(start.storage), core, start.user_agent);
  const loop = new DeliveryLoop(core, settings.max_concurrent_deliveries, (d) => sender.deliver(d));
  return {
    onWork: () => loop.poke(),
    async stop() {
      await loop.stop();
      sender.close();
    },
  };
});
