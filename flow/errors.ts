/** Refusals of operator actions on messages (docs/api/lifecycles.md#delivery-state); the API maps each to its answer. */
import type { DeliveryState } from './tables/delivery-states.js';
import type { MessageStage } from './tables/status.js';

export class MessageNotFound extends Error {
  constructor() {
    super('Message not found');
    this.name = 'MessageNotFound';
  }
}

export class DeliveryNotFound extends Error {
  constructor() {
    super('Delivery not found');
    this.name = 'DeliveryNotFound';
  }
}

export class NotRedispatchable extends Error {
  constructor(
    readonly stage: MessageStage,
    readonly allowed: MessageStage[],
  ) {
    super(`A message in stage ${stage} cannot be dispatched again; its source still owns it`);
    this.name = 'NotRedispatchable';
  }
}

export class NotRedeliverable extends Error {
  constructor(
    readonly state: DeliveryState,
    readonly allowed: DeliveryState[],
  ) {
    super(`A delivery that is ${state} cannot be delivered again`);
    this.name = 'NotRedeliverable';
  }
}
