/**
 * What every target actor shares: claim deliveries while it has room, deliver each at most
 * `max_concurrent_deliveries` at a time in the order claimed, report the results, and claim
 * again when there may be more: after a claim that came back full, or when told of work (every
 * acceptance's notice pokes its targets; one that arrives while a claim runs makes the loop
 * claim again after it, so none is missed). A stop waits for the deliveries being delivered.
 *
 * The room is the claim window (claim-window.ts): a target with a backlog claims ahead of its
 * concurrency, so a claim and a report serve many deliveries. Results go to the reporter
 * (result-reporter.ts), which records them together and keeps them through a database outage;
 * a delivery's window place is free again once its result is recorded.
 *
 * When every slot is busy and nothing waits to start, a notice of work does not claim at once:
 * nothing claimed could start before a delivery ends, so the claim goes with that delivery's
 * result, in its statement: one statement and commit instead of two (at concurrency 1 the
 * receive benchmark went from 2.93 to 2.55 commits per message; benchmarks/history/2026-11-23-a-claim-rides-with-the-result-that-frees-a-busy-slot.md).
 */
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import { tellDatabase, type OutageTeller } from './database-outage.js';
import type { Claimed, DeliveryPort } from './delivery-port.js';
import { ClaimWindow } from './claim-window.js';
import { ResultReporter } from './result-reporter.js';
import { limits } from '../../limits/limits.js';

export type Deliver = (delivery: ClaimedDelivery) => Promise<DeliveryOutcome>;

export class DeliveryLoop {
  /** Claimed, waiting for a free slot, in claim order. */
  #queue: ClaimedDelivery[] = [];
  /** Deliveries being delivered now (at most `slots`). */
  #running = 0;
  #claiming = false;
  /** Work may be waiting: told so, or the last claim was full. */
  #wanted = false;
  #stopped = false;
  #claimFailures = 0;
  /** A claim failed: its statement may have committed, its deliveries unknown to this loop. */
  #claimsLost = false;
  /** The deliveries in hand, claimed and not yet recorded. */
  readonly #hand = new Set<number>();
  #retryTimer: NodeJS.Timeout | undefined;
  #drained: (() => void)[] = [];
  readonly #window: ClaimWindow;
  readonly #reporter: ResultReporter;

  constructor(
    private readonly core: Pick<DeliveryPort, 'claim' | 'record' | 'releaseLost'> & OutageTeller,
    private readonly slots: number,
    private readonly deliver: Deliver,
    /** How long a result may wait for others (tests set their own). */
    lingerMs = limits.resultLingerMs,
  ) {
    this.#window = new ClaimWindow(slots);
    this.#reporter = new ResultReporter(
      core,
      {
        recorded: (deliveries) => this.#afterRecorded(deliveries),
        claimAlong: (freeing) => this.#claimAlong(freeing),
        claimedAlong: (asked, claimed) => {
          this.#claiming = false;
          this.#claimSucceeded();
          this.#took(asked, claimed);
          if (this.#wanted) void this.#pump();
        },
        claimAlongFailed: (error) => {
          this.#claiming = false;
          this.#claimFailed(error);
        },
      },
      lingerMs,
    );
  }

  poke(): void {
    this.#wanted = true;
    void this.#pump();
  }

  /** Deliveries in hand: claimed and not yet recorded. */
  #inHand(): number {
    return this.#hand.size;
  }

  /**
   * Claims go out when a quarter of the window is free (or nothing is in hand), so deliveries
   * are claimed a few at a time rather than one by one.
   */
  #room(freeing = 0): number {
    const held = this.#inHand() - freeing;
    const free = this.#window.size - held;
    const enough = held === 0 || free >= Math.max(1, Math.floor(this.#window.size / 4));
    return free > 0 && enough ? free : 0;
  }

  /** Every slot is busy and nothing waits to start: a claim rides with the next result. */
  #claimWaitsForResult(): boolean {
    return this.#running >= this.slots && this.#queue.length === 0 && !this.#claimsLost;
  }

  /**
   * Asked as a report of `freeing` results goes: how many deliveries to claim along with it
   * (0 for none). Work must be wanted, no claim running or waiting to be tried again.
   */
  #claimAlong(freeing: number): number {
    if (
      !this.#wanted ||
      this.#claiming ||
      this.#stopped ||
      this.#retryTimer !== undefined ||
      this.#claimsLost
    )
      return 0;
    const room = this.#room(freeing);
    if (room === 0) return 0;
    this.#wanted = false;
    this.#claiming = true;
    return room;
  }

  async #pump(): Promise<void> {
    if (this.#claiming) return;
    let room: number;
    while (
      this.#wanted &&
      !this.#stopped &&
      this.#retryTimer === undefined &&
      !this.#claimWaitsForResult() &&
      (room = this.#room()) > 0
    ) {
      this.#wanted = false;
      this.#claiming = true;
      let claimed: ClaimedDelivery[] = [];
      let more = false;
      try {
        if (this.#claimsLost && this.core.releaseLost) await this.core.releaseLost([...this.#hand]);
        this.#claimsLost = false;
        ({ deliveries: claimed, more } = await this.core.claim(room));
        this.#claimSucceeded();
      } catch (error) {
        this.#claimFailed(error);
      } finally {
        this.#claiming = false;
      }
      if (this.#stopped) return;
      this.#took(room, { deliveries: claimed, more });
    }
  }

  /** What a claim of `asked` brought: held, queued and started as slots allow. */
  #took(asked: number, { deliveries, more }: Claimed): void {
    // Stopped while the claim ran: what it brought is not started; the supervisor gives it back.
    if (this.#stopped) return;
    this.#window.claimed(asked, deliveries.length);
    // More still queued: claim again while there is room. Otherwise the claim took all there
    // was, and the next notice of work pokes the loop.
    if (more) this.#wanted = true;
    for (const d of deliveries) this.#hand.add(d.delivery_id);
    this.#queue.push(...deliveries);
    this.#startQueued();
  }

  #claimSucceeded(): void {
    if (this.#claimFailures > 0) tellDatabase(this.core, true, 'claiming deliveries');
    this.#claimFailures = 0;
  }

  /** Logged once per outage; the loop claims again after a wait instead of waiting for a poke. */
  #claimFailed(error: unknown): void {
    if (this.#claimFailures === 0) tellDatabase(this.core, false, 'claiming deliveries', error);
    this.#claimsLost = true;
    const wait = limits.claimRetryMs[Math.min(this.#claimFailures, limits.claimRetryMs.length - 1)]!;
    this.#claimFailures++;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.poke();
    }, wait).unref();
  }

  #startQueued(): void {
    while (this.#running < this.slots && this.#queue.length > 0) void this.#run(this.#queue.shift()!);
  }

  async #run(delivery: ClaimedDelivery): Promise<void> {
    this.#running++;
    let outcome: DeliveryOutcome;
    try {
      outcome = await this.deliver(delivery);
    } catch (error) {
      outcome = { ok: false, retryable: true, error: error instanceof Error ? error.message : String(error) };
    }
    this.#running--;
    this.#startQueued();
    if (this.#running === 0 && this.#queue.length === 0)
      for (const resolve of this.#drained.splice(0)) resolve();
    // Nothing else in hand will finish soon: waiting for company would only delay this result.
    // Nor does a result that a claim waits for (every slot was busy, #claimWaitsForResult): the
    // slot it frees has nothing to start until that claim comes back.
    const alone = this.#running === 0 && this.#queue.length === 0;
    const claimRides = this.#wanted && this.#queue.length === 0 && this.#running + 1 >= this.slots;
    this.#reporter.add(delivery, outcome, alone || claimRides || this.#stopped);
  }

  #afterRecorded(recorded: ClaimedDelivery[]): void {
    for (const d of recorded) this.#hand.delete(d.delivery_id);
    if (this.#wanted) void this.#pump();
  }

  /**
   * No more claims; resolves when the deliveries being delivered are done and their results
   * recorded (or kept back by a database that does not answer, for at most a moment). Those
   * claimed and not started are left alone: the supervisor gives them back to the queue, where
   * the next claim (of any process) takes them, rather than a stop waiting for a window's worth.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    for (const d of this.#queue.splice(0)) this.#hand.delete(d.delivery_id);
    if (this.#running > 0) await new Promise<void>((resolve) => this.#drained.push(resolve));
    await this.#reporter.close(limits.deliveryStopGraceMs);
  }
}
