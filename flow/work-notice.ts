/**
 * The notice that targets have queued deliveries: its channel, its payload, and sending it in a
 * transaction. Its own module so that raising alerts (flow/alerts/) can tell notifiers without
 * importing the flow's shared statements (flow/tx.ts), which raise alerts themselves.
 */
import { pgArray, type Tx } from '../storage/sql.js';

/** Tells every pier process (this one too) that these targets have queued deliveries. */
export const workChannel = 'pier_work';

/**
 * A notice on workChannel: `target`, or `node:target` when node `node` has told its own
 * actors already (instance names hold no colon). The acceptance tags its notices: its process
 * pokes its targets itself once the transaction commits, and the echo of its own NOTIFY made
 * each target claim a second time, finding nothing (a statement and a commit per message).
 */
export function readWorkNotice(payload: string): { node: number | null; target: string } {
  const colon = payload.indexOf(':');
  if (colon < 0) return { node: null, target: payload };
  return { node: Number(payload.slice(0, colon)), target: payload.slice(colon + 1) };
}

export async function announce(tx: Tx, targets: readonly string[]): Promise<void> {
  if (targets.length === 0) return;
  await tx.all(`select pg_notify('${workChannel}', t) from unnest(?::text[]) as t`, [
    pgArray([...new Set(targets)]),
  ]);
}
