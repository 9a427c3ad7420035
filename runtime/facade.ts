/**
 * What the API and the CLI ask of the runtime beyond the running Runtime object (dispatcher,
 * supervisor): the one module of runtime/ they import for operations, so the dispatcher's
 * internals (acceptance, routing, transactions) stay the runtime's own.
 */
import {
  checkConnection,
  type CheckAnswer,
  type CheckTarget,
} from '../actors/as2-sender/check-connection.js';
import type { Orm } from '../storage/db.js';
import type { SecretBox } from './secrets/secret-box.js';
import { inTx } from '../storage/sql.js';
import { partnerReach, type PartnerReach } from './as2/partner-reach.js';
import { loadRoutes } from './dispatch/dispatch.js';
import { redeliver } from './dispatch/redo.js';
import { targetsBetween } from './dispatch/routing.js';

export type { CheckAnswer } from '../actors/as2-sender/check-connection.js';
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
 * It runs in the calling process with the named sender's settings (it holds no state and opens
 * no database connection).
 */
export function checkConnectionTo(target: CheckTarget): Promise<CheckAnswer> {
  return checkConnection(target);
}

/** Where and how a partner's AS2 profile says to reach it (endpoint, certificates, TLS); undefined without one. */
export function reachOfPartner(
  orm: Orm,
  secrets: SecretBox,
  partnerId: number,
): Promise<PartnerReach | undefined> {
  return inTx(orm, (tx) => partnerReach(tx, secrets, partnerId));
}
