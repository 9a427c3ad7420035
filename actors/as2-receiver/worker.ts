/**
 * The AS2 receiver actor: an HTTP or HTTPS server on its own port (see server.ts), on as many
 * threads as its listener plan says (listener-plan.ts). The thread the supervisor starts listens
 * and is ready; the others start meanwhile (listeners.ts), running this same file with `thread` set.
 */
import { InitError, runActor } from '../../protocol/worker-host/host.js';
import { openActorStore } from '../shared/payload-store.js';
import { acceptancePort, withAcceptance } from '../shared/acceptance-port.js';
import { parseSettings } from '../shared/settings.js';
import { as2ReceiverType } from './config.js';
import { listenerPlan } from './listener-plan.js';
import { ListenerThreads } from './listeners.js';
import { endInstance } from '../shared/instance-threads.js';
import { As2ReceiverServer } from './server.js';
import { receiverTls } from './tls.js';
import { HandoffGiver } from '../shared/handoff-giver.js';

runActor(async (start, core) => {
  const settings = parseSettings(as2ReceiverType, start.settings);
  const first = start.thread === undefined;
  const plan = listenerPlan(settings.listener_threads);
  const tls = receiverTls(settings, start);
  const acceptances = acceptancePort(start, core);
  const handoff = new HandoffGiver(acceptances, (level, msg, fields) => core.log(level, msg, fields));
  const server = new As2ReceiverServer(
    settings,
    withAcceptance(core, acceptances),
    openActorStore(start, core),
    start.user_agent,
    tls,
    handoff,
    acceptances.storedOf,
    plan.threads,
  );
  await server.listen(plan.reusePort).catch(async (error: Error) => {
    await acceptances.close();
    throw new InitError(
      'LISTEN_FAILED',
      `cannot listen on ${settings.host}:${settings.port}: ${error.message}`,
    );
  });
  const listeners =
    first && plan.threads > 1
      ? new ListenerThreads(
          plan.threads - 1,
          new URL(import.meta.url),
          start,
          core,
          endInstance(core, 'a listener thread of the receiver was lost; the receiver stops'),
        )
      : null;
  if (plan.fewerBecause && first) core.log('info', plan.fewerBecause, { port: settings.port });
  // Once every listener thread listens (one that does not ends the receiver instead).
  void listeners?.started.then(() => {
    if (listeners.count === plan.threads - 1)
      core.log('info', `listening on ${plan.threads} threads`, { port: settings.port });
  });
  return {
    onHandoffTo: (target, channel) => {
      listeners?.handOffTo(target, channel);
      handoff.connect(target, channel);
    },
    async stop(withinMs) {
      await Promise.all([server.stop(withinMs), listeners?.stop(withinMs)]);
      handoff.close();
      await acceptances.close();
    },
  };
});
