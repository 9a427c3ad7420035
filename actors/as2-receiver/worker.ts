/** The AS2 receiver actor: an HTTP or HTTPS server on its own port (see server.ts). */
import { InitError, runActor } from '../../protocol/worker-host/host.js';
import { openActorStore } from '../shared/payload-store.js';
import { acceptancePort, withAcceptance } from '../shared/acceptance-port.js';
import { parseSettings } from '../shared/settings.js';
import { as2ReceiverType, type As2ReceiverSettings } from './config.js';
import { As2ReceiverServer } from './server.js';
import { receiverTls } from './tls.js';
import { HandoffGiver } from '../shared/handoff-giver.js';

runActor(async (start, core) => {
  const settings = parseSettings<As2ReceiverSettings>(as2ReceiverType, start.settings);
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
  );
  await server.listen().catch(async (error: Error) => {
    await acceptances.close();
    throw new InitError(
      'LISTEN_FAILED',
      `cannot listen on ${settings.host}:${settings.port}: ${error.message}`,
    );
  });
  return {
    onHandoffTo: (target, channel) => handoff.connect(target, channel),
    async stop(withinMs) {
      await server.stop(withinMs);
      handoff.close();
      await acceptances.close();
    },
  };
});
