/**
 * Acceptance of a message whose bytes carry control numbers pier gives (an interchange built
 * from documents without envelopes): the numbers are taken, the bytes written with them and
 * stored, and the message accepted, in one transaction. Whatever fails before the commit (the
 * build, the payload store, the acceptance, the process killed with -9) rolls the counters
 * back with it, so no number is ever taken for a message that was not accepted.
 *
 * Locks, in this order: the partner's edi_control_number rows of the levels taken (in level
 * order, takeControlNumbers), held until the commit, so builds for one partner take turns for
 * the length of their build and store; then only rows the acceptance inserts (accept.ts). No
 * other command locks a counter row, and the counter rows are taken before any message row,
 * so this adds no circle to the flow's lock order (lock-order.test.ts runs it with the rest).
 */
import { acceptBatch, type AcceptItem, type Announce, type Accepted } from './accept.js';
import {
  takeControlNumbers,
  type ControlBlock,
  type ControlLevel,
} from '../../storage/repositories/control-numbers.js';
import type { Tx } from '../tx.js';

/** Whose numbers, how many of each level, and the largest the standard's fields hold. */
export interface Numbering {
  partnerId: number;
  counts: Partial<Record<ControlLevel, number>>;
  max: number;
}

/**
 * Takes `numbering`'s control numbers, lets `make` build and store the message with them (it
 * runs inside the transaction, with the counter rows locked) and accepts what it returns.
 */
export async function acceptNumbered(
  tx: Tx,
  at: Date,
  node: number,
  numbering: Numbering,
  make: (block: ControlBlock) => Promise<AcceptItem>,
  announce: Announce = 'others',
): Promise<Accepted & { block: ControlBlock }> {
  const block = await takeControlNumbers(
    tx,
    numbering.partnerId,
    'outbound',
    numbering.counts,
    numbering.max,
  );
  const item = await make(block);
  const accepted = await acceptBatch(tx, at, node, [item], undefined, announce);
  return { ...accepted, block };
}
