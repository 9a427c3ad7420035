/** The HTTP poster actor: posts each claimed delivery to its URL (see post.ts). */
import { runActor } from '../../protocol/worker-host/host.js';
import { openActorStore } from '../shared/payload-store.js';
import { DeliveryLoop } from '../shared/delivery-loop.js';
import { deliveryPort } from '../shared/delivery-port.js';
import { ReachTeller } from '../shared/reach-teller.js';
import { parseSettings } from '../shared/settings.js';
import { httpPosterType } from './config.js';
import { HttpPoster, type PosterSecrets } from './post.js';

runActor(async (start, core) => {
  const settings = parseSettings(httpPosterType, start.settings);
  const poster = new HttpPoster(
    settings,
    start.secrets as PosterSecrets,
    openActorStore(start, core),
    start.user_agent,
  );
  const port = deliveryPort(start, core);
  const reach = new ReachTeller(core);
  const loop = new DeliveryLoop(port, settings.max_concurrent_deliveries, (d) =>
    reach.watch(d, poster.deliver(d)),
  );
  return {
    onWork: () => loop.poke(),
    async stop() {
      await loop.stop();
      await port.close();
      poster.close();
    },
  };
});
