/**
 * Sending a CEM message to a partner over AS2 like any message: kept as its MIME entity
 * (actors/as2/cem/entity.ts), accepted from the organization to the partner and handed to an
 * AS2 sender: the one the routes from the organization to the partner name, else the only one.
 */
import { randomUUID } from 'node:crypto';
import { keepBytes } from '../../storage/payloads/inline.js';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { type Tx } from '../../storage/sql.js';
import type { Orm } from '../../storage/db.js';
import { targetsBetween, type RouteRow } from '../../flow/tables/routing.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { CemRefusal } from './refusal.js';

export interface CemSendDeps {
  orm: Orm;
  payloads: PayloadStore;
  dispatcher: Dispatcher;
}

/** The AS2 sender for messages from `organization` to `partner`, or a refusal on `sender`. */
export async function chooseSender(
  tx: Tx,
  organization: string,
  partner: string,
  named?: string,
): Promise<string> {
  const senders = (
    await tx.all<{ name: string }>(`select name from plugin_config where type = 'as2-sender' order by name`)
  ).map((r) => r.name);
  if (named !== undefined) {
    if (!senders.includes(named)) throw new CemRefusal({ sender: `No AS2 sender is named ${named}` });
    return named;
  }
  const routes = await tx.all<RouteRow>(
    'select source_plugin, from_party, to_party, target_plugin from route',
  );
  const routed = targetsBetween(organization, partner, routes).filter((t) => senders.includes(t));
  if (routed.length === 1) return routed[0]!;
  if (senders.length === 1) return senders[0]!;
  throw new CemRefusal({
    sender:
      senders.length === 0
        ? 'No AS2 sender is configured to send the certificate exchange message through'
        : `Name one of the AS2 senders (${senders.join(', ')})`,
  });
}

/** Accepts the entity as a message from `organization` to `partner` for `sender`; returns its id. */
export async function sendCemMessage(
  deps: CemSendDeps,
  m: {
    organization: string;
    partner: string;
    sender: string;
    fileName: string;
    entity: Buffer;
    text: string;
  },
): Promise<string> {
  const id = randomUUID();
  const kept = await keepBytes(deps.payloads, { messageId: id, stage: 'unpacked' }, m.entity);
  try {
    await deps.dispatcher.acceptAndDispatch({
      source_type: 'cem',
      source_name: 'cem',
      message: {
        id,
        from: m.organization,
        to: m.partner,
        file_name: m.fileName,
        payload: { stage: 'unpacked', ...kept },
      },
      target_hint: m.sender,
      text: m.text,
    });
  } catch (error) {
    await deps.payloads.removeMessage(id).catch(() => {});
    throw error;
  }
  return id;
}
