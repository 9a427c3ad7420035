/**
 * Delivery states and the moves between them (docs/api/lifecycles.md#delivery-state plus the moves it leaves open:
 * claiming, retry scheduling, taking back a claim). The dispatcher's SQL reads its
 * conditions from this table, so the table is what happens.
 */

export const deliveryStates = [
  'queued',
  'delivering',
  'retrying',
  'awaiting_ack',
  'delivered',
  'failed',
  'stalled',
] as const;
export type DeliveryState = (typeof deliveryStates)[number];

export type DeliveryEvent =
  /** A target instance takes it. */
  | 'claim'
  /** The target reports success. */
  | 'deliver'
  /** Sent; the partner's receipt is still to come (AS2 asynchronous MDN). */
  | 'await_ack'
  | 'ack'
  /** A failed attempt that may be tried again, within the retry limit. */
  | 'retry'
  /** A failed attempt that will not be tried again. */
  | 'fail'
  /** The holder stopped, crashed or its process died: the claim is taken back. */
  | 'release'
  /** The wait of a retrying delivery is over. */
  | 'due'
  /** Announced `delivery_max_dispatches` times and nobody claimed it. */
  | 'stall'
  | 'redispatch'
  | 'redeliver';

export const deliveryTransitions: Record<DeliveryState, Partial<Record<DeliveryEvent, DeliveryState>>> = {
  queued: { claim: 'delivering', stall: 'stalled', redispatch: 'queued' },
  delivering: {
    deliver: 'delivered',
    await_ack: 'awaiting_ack',
    retry: 'retrying',
    fail: 'failed',
    release: 'queued',
  },
  retrying: { due: 'queued', redeliver: 'queued' },
  awaiting_ack: { ack: 'delivered', fail: 'failed' },
  delivered: { redeliver: 'queued' },
  failed: { redeliver: 'queued' },
  stalled: { redispatch: 'queued', redeliver: 'queued' },
};

/** The states a delivery may be in for `event` to apply, in table order. */
export function statesFor(event: DeliveryEvent): DeliveryState[] {
  return deliveryStates.filter((s) => deliveryTransitions[s][event] !== undefined);
}

/** States in which nothing more happens by itself. */
export const finalStates: readonly DeliveryState[] = ['delivered', 'failed', 'stalled'];

/** The state `event` moves a delivery in `from` to; a move the table does not have is a bug. */
export function nextState(from: DeliveryState, event: DeliveryEvent): DeliveryState {
  const to = deliveryTransitions[from][event];
  if (to === undefined) throw new Error(`A delivery in ${from} has no move on ${event}`);
  return to;
}
