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
