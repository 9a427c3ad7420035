/**
 * The AS2 sender actor: sends each claimed delivery to the partner (see send.ts), on as many
 * threads as its `threads` setting says, each claiming its share of the queued deliveries from
 * PostgreSQL as several nodes do. The thread the supervisor starts is ready first and starts the
 * others (actors/shared/instance-threads.ts), running this same file with `thread` set.
 */
import { runActor } from '../../protocol/worker-host/host.js';
import { openActorStore } from '../shared/payload-store.js';
import { DeliveryLoop } from '../shared/delivery-loop.js';
import { deliveryPort } from '../shared/delivery-port.js';
import { ReachTeller } from '../shared/reach-teller.js';
import { parseSettings } from '../shared/settings.js';
import { InstanceThreads } from '../shared/instance-threads.js';
import { slotsOf, threadCount } from '../shared/thread-count.js';
import { checkConnection } from './check-connection.js';
import { as2SenderType } from './config.js';
import { As2Sender } from './send.js';
import { limits } from '../../limits/limits.js';

runActor(async (start, core) => {
  const settings = parseSettings(as2SenderType, start.settings);
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
  // Every thread has a share of max_concurrent_deliveries, which counts for the sender as a whole.
  const threads = Math.min(threadCount(settings.threads), settings.max_concurrent_deliveries);
  const loop = new DeliveryLoop(
    port,
    slotsOf(settings.max_concurrent_deliveries, threads, start.thread ?? 1),
    (d) => reach.watch(d, sender.deliver(d)),
  );
  const others = InstanceThreads.startOthers(threads, new URL(import.meta.url), start, core, {
    working: `sending on ${threads} threads`,
    lost: 'a thread of the AS2 sender was lost; the sender stops',
  });
  // Told of work only from now on: what was queued before it started waits for it too.
  if (start.thread !== undefined) loop.poke();
  return {
    onWork: () => {
      loop.poke();
      others?.work();
    },
    // Checked here, where sending runs: with the timeout and User-Agent this instance sends with.
    checkConnection: ({ type: _type, ...question }) =>
      checkConnection({
        ...question,
        headers: { 'User-Agent': start.user_agent, ...question.headers },
        timeoutMs: Math.min(settings.timeout_seconds, limits.checkTimeoutCapSeconds) * 1000,
        proxy: { settings, password: (start.secrets as { proxy_password?: string }).proxy_password },
      }),
    async stop(withinMs) {
      await Promise.all([loop.stop(), others?.stop(withinMs)]);
      await port.close();
      sender.close();
    },
  };
});
