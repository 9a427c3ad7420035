/**
 * What every target actor shares: claim deliveries while it has room (max_concurrent_deliveries),
 * deliver each, report the result, and claim again when there may be more: after a claim that
 * brought deliveries, or when told of work. A claim that finds nothing waits in the core for
 * work, so a loop with room keeps one claim out. A stop waits for the deliveries in hand.
 *
 * Results are held back a little to be recorded together (`resultLingerMs`): each report is a
 * statement in PostgreSQL, and one for a handful of results costs little more than one for one
 * (benchmarks/README.md, as2-receive, "Results recorded together"). A held result keeps its slot,
 * so a loop with no free slot (max_concurrent_deliveries 1, or all busy) reports at once: no
 * other delivery could come to it while it waited. Nobody waits on a result but the operator
 * reading the message's status, and a result lost with the process (kill -9) only repeats the
 * delivery, which the targets take as done (a file with the same content is already there).
 */
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import type { CoreClient } from '../../protocol/worker-host/host.js';

export type Deliver = (delivery: ClaimedDelivery) => Promise<DeliveryOutcome>;

/** The longest a result waits for others to be recorded with it, in milliseconds. */
export const resultLingerMs = 25;
/** Most results held back at once; more are reported at once. */
const maxHeldResults = 100;

interface HeldResult {
  delivery: ClaimedDelivery;
  outcome: DeliveryOutcome;
  reported(): void;
}

export class DeliveryLoop {
  /** Slots in use: deliveries being delivered, and those whose result is not recorded yet. */
  #active = 0;
  #claiming = false;
  /** Work may be waiting: told so, or the last claim was full. */
  #wanted = false;
  #stopped = false;
  #drained: (() => void)[] = [];
  #held: HeldResult[] = [];
  #flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly core: CoreClient,
    private readonly slots: number,
    private readonly deliver: Deliver,
    /** How long a result may wait for others (tests set their own). */
    private readonly lingerMs = resultLingerMs,
  ) {}

  poke(): void {
    this.#wanted = true;
    void this.#pump();
  }

  /**
   * Claims go out when a quarter of the slots are free (or none is busy), so deliveries are
   * claimed a few at a time rather than one by one.
   */
  #room(): boolean {
    const free = this.slots - this.#active;
    return free > 0 && (this.#active === 0 || free >= Math.max(1, Math.floor(this.slots / 4)));
  }

  async #pump(): Promise<void> {
    if (this.#claiming) return;
    while (this.#wanted && !this.#stopped && this.#room()) {
      this.#wanted = false;
      this.#claiming = true;
      const room = this.slots - this.#active;
      let claimed: ClaimedDelivery[] = [];
      try {
        claimed = await this.core.claim(room);
      } catch (error) {
        this.core.log('warn', 'claiming deliveries failed', { error: String(error) });
      } finally {
        this.#claiming = false;
      }
      // More may come: the core holds a claim that finds nothing until work arrives
      // (runtime/dispatch/waiting-claims.ts), so one stays out while there is room.
      if (claimed.length > 0) this.#wanted = true;
      for (const delivery of claimed) void this.#run(delivery);
    }
  }

  async #run(delivery: ClaimedDelivery): Promise<void> {
    this.#active++;
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.deliver(delivery);
    } catch (error) {
      outcome = { ok: false, retryable: true, error: error instanceof Error ? error.message : String(error) };
    }
    await new Promise<void>((reported) => this.#hold({ delivery, outcome, reported }));
    this.#active--;
    if (this.#active === 0) for (const resolve of this.#drained.splice(0)) resolve();
    if (this.#wanted) void this.#pump();
  }

  /** Reported now when nothing more could join it, else with the next ones or after lingerMs. */
  #hold(result: HeldResult): void {
    this.#held.push(result);
    const full = this.#active >= this.slots || this.#held.length >= maxHeldResults;
    if (full || this.#stopped) this.#flush();
    else this.#flushTimer ??= setTimeout(() => this.#flush(), this.lingerMs);
  }

  /** Reports the held results in one synchronous run: the core client sends them as one request. */
  #flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    for (const { delivery, outcome, reported } of this.#held.splice(0)) {
      this.core
        .result(delivery, outcome)
        .catch((error: unknown) => {
          // The claim stays with this instance; a stop or a restart gives it back.
          this.core.log('error', 'recording a delivery result failed', {
            delivery: delivery.delivery_id,
            error: String(error),
          });
        })
        .finally(reported);
    }
  }

  /** No more claims; resolves when the deliveries in hand are reported. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#flush();
    if (this.#active === 0) return;
    await new Promise<void>((resolve) => this.#drained.push(resolve));
  }
}
