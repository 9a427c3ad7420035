/** The AS2 sender actor: sends each claimed delivery to the partner (see send.ts). */
import { runActor } from '../../protocol/worker-host/host.js';
import { openActorStore } from '../shared/payload-store.js';
import { DeliveryLoop } from '../shared/delivery-loop.js';
import { deliveryPort } from '../shared/delivery-port.js';
import { ReachTeller } from '../shared/reach-teller.js';
import { parseSettings } from '../shared/settings.js';
import { checkConnection } from './check-connection.js';
import { as2SenderType, type As2SenderSettings } from './config.js';
import { As2Sender } from './send.js';
import { limits } from '../../limits/limits.js';

runActor(async (start, core) => {
  const settings = parseSettings<As2SenderSettings>(as2SenderType, start.settings);
  const sender = new As2Sender(
    settings,
    openActorStore(start, core),
    core,
    start.user_agent,
    (start.secrets as { proxy_password?: string }).proxy_password,
  );
  const port = deliveryPort(start, core);
  // One sender serves every AS2 partner: reachability is told per partner (the message's receiver).
  const reach = new ReachTeller(core, (d) => d.message.to);
  const loop = new DeliveryLoop(port, settings.max_concurrent_deliveries, (d) =>
    reach.watch(d, sender.deliver(d)),
  );
  return {
    onWork: () => loop.poke(),
    // Checked here, where sending runs: with the timeout and User-Agent this instance sends with.
    checkConnection: ({ type: _type, ...question }) =>
      checkConnection({
        ...question,
        headers: { 'User-Agent': start.user_agent, ...question.headers },
        timeoutMs: Math.min(settings.timeout_seconds, limits.checkTimeoutCapSeconds) * 1000,
        proxy: { settings, password: (start.secrets as { proxy_password?: string }).proxy_password },
      }),
    async stop() {
      await loop.stop();
      await port.close();
      sender.close();
    },
  };
});
