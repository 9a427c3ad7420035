/**
 * What a target tells the core of its partners' reachability (alert `partner_unreachable`,
 * runtime/alerts/partner-alerts.ts): each failed attempt that an unreachable partner makes
 * (retryable: refused, DNS, TLS, timeout, 5xx; not the payload store's failure, not a 4xx), and
 * the first success after such failures or after the actor started. Successes in a row are told
 * once, so a healthy partner costs one event per start, not one per delivery.
 *
 * A delivery that succeeds after one failed on the payload store also tells the core the store
 * works again: the dispatcher raised `storage_failed` for that failure, and without a file
 * poller writing to the store nothing else would end it.
 */
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';
import { isStorageFailure } from '../../storage/payloads/storage-failure.js';

export class ReachTeller {
  /** Partners whose last attempt succeeded and was told; absent: unknown or failing. */
  readonly #reachable = new Set<string>();
  /** A delivery failed on the payload store, and none has succeeded since. */
  #storeFailing = false;

  constructor(
    private readonly core: Pick<CoreClient, 'reach' | 'storage'>,
    /** The partner of a delivery when the target sends to many (an AS2 sender); '' for the target's own. */
    private readonly partnerOf: (delivery: ClaimedDelivery) => string = () => '',
  ) {}

  /** Passes a delivery's outcome through, telling the core what it says of the partner. */
  async watch(delivery: ClaimedDelivery, attempt: Promise<DeliveryOutcome>): Promise<DeliveryOutcome> {
    const outcome = await attempt;
    this.observe(delivery, outcome);
    return outcome;
  }

  observe(delivery: ClaimedDelivery, outcome: DeliveryOutcome): void {
    const partner = this.partnerOf(delivery);
    if (outcome.ok) {
      if (this.#storeFailing) {
        this.#storeFailing = false;
        this.core.storage(true);
      }
      if (this.#reachable.has(partner)) return;
      this.#reachable.add(partner);
      this.core.reach(true, partner || undefined);
      return;
    }
    if (isStorageFailure(outcome.error)) {
      this.#storeFailing = true;
      return;
    }
    // A refusal (4xx, a negative receipt) comes from a partner that answered.
    if (!outcome.retryable) return;
    this.#reachable.delete(partner);
    this.core.reach(false, partner || undefined, outcome.error);
  }
}
