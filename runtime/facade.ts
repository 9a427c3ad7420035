/**
 * What the API and the CLI ask of the runtime beyond the running Runtime object (dispatcher,
 * supervisor): its operations, offered through the runtime's door (runtime/index.ts), so the
 * dispatcher's internals (acceptance, routing, transactions) stay the runtime's own.
 */
import type { CheckAnswer } from '../protocol/host-protocol.js';
import type { Orm } from '../storage/db.js';
import type { SecretBox } from './secrets/secret-box.js';
import { inTx } from '../storage/sql.js';
import { partnerReach, type PartnerReach } from './as2/partner-reach.js';
import { as2OrganizationNames, outboundContext } from './as2/profiles.js';
import type { As2OutboundContext } from '../protocol/as2-protocol.js';
import { loadRoutes } from '../flow/commands/dispatch.js';
import { redeliver } from '../flow/commands/redo.js';
import { targetsBetween } from '../flow/tables/routing.js';

import type { Supervisor } from './supervisor/supervisor.js';

export type { CheckAnswer } from '../protocol/host-protocol.js';
export { checkHandUpload, type HandUploadCheck, type HandUploadForm } from './hand-upload.js';

/** The targets the routes name between two parties, for each pair asked about; routes read once. */
export async function routedTargets(orm: Orm): Promise<(from: string, to: string) => string[]> {
  const routes = await inTx(orm, loadRoutes);
  return (from, to) => targetsBetween(from, to, routes);
}

/**
 * A redeliver asked for while no runtime runs in this process (the CLI): the same move the
 * dispatcher makes, in a transaction of its own; a running target picks it up when announced.
 */
export async function redeliverWithoutRuntime(
  orm: Orm,
  at: Date,
  messageId: string,
  deliveryId: number,
  actor: string,
): Promise<void> {
  await inTx(orm, (tx) => redeliver(tx, at, messageId, deliveryId, actor));
}

/**
 * Checks the way to a partner without sending a message: certificates, name, TCP, TLS, HTTP.
 * The named AS2 sender makes the probes in its own thread, where it sends from, with the
 * timeout and User-Agent it runs with; the core supplies what the partner's profile says.
 * InstanceNotRunning when that sender is not running in this process.
 */
export async function checkConnectionTo(
  supervisor: Supervisor,
  sender: string,
  reach: PartnerReach,
  now: Date,
): Promise<CheckAnswer> {
  const { ok, steps, problem } = await supervisor.ask('as2-sender', sender, {
    type: 'check_connection',
    endpoint: reach.endpoint,
    certificates: reach.certificates,
    tls: reach.tls,
    headers: reach.headers,
    now,
  });
  return problem === undefined ? { ok, steps } : { ok, steps, problem };
}

/** Where and how a partner's AS2 profile says to reach it (endpoint, certificates, TLS); undefined without one. */
export function reachOfPartner(
  orm: Orm,
  secrets: SecretBox,
  partnerId: number,
): Promise<PartnerReach | undefined> {
  return inTx(orm, (tx) => partnerReach(tx, secrets, partnerId));
}

/**
 * What the AS2 sender would send with from `organization` to `partner` (their profiles, keys
 * opened, `pier bench --partner`). Without `organization`, the one organization with an AS2
 * profile; an error naming them when there are several, or saying what is missing.
 */
export async function outboundContextOf(
  orm: Orm,
  secrets: SecretBox,
  partner: string,
  organization?: string,
): Promise<As2OutboundContext> {
  return inTx(orm, async (tx) => {
    let from = organization;
    if (from === undefined) {
      const names = await as2OrganizationNames(tx);
      if (names.length !== 1)
        throw new Error(
          names.length === 0
            ? 'No organization has an AS2 profile'
            : `Several organizations have an AS2 profile (${names.join(', ')}): name one with --organization`,
        );
      from = names[0]!;
    }
    const context = await outboundContext(tx, secrets, from, partner);
    if (!context.found) throw new Error(`Cannot send from ${from} to ${partner}: ${context.problem}`);
    return context;
  });
}
