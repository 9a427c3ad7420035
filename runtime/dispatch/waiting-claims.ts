/**
 * Claims that found nothing to deliver wait here, one per target, instead of answering empty.
 * The next acceptance with deliveries for that target claims them as it stores them, in the
 * same statement (accept.ts, `rooms`), and answers the waiting claim with them; a work notice
 * from anywhere else (another process, a retry that fell due, a release) runs the claim
 * statement for it. Before, every accepted message cost its target a poke, a claim request
 * back, and a claim statement of its own (a round trip and a commit, rewriting the delivery it
 * had just inserted): the largest part of the delivery side's PostgreSQL work.
 *
 * A claim handed to an acceptance in flight is `taken`: a work notice meanwhile cannot answer
 * it, so it is looked at again when the acceptance is done, and a cancel (its instance
 * stopped) is remembered, so the deliveries the acceptance claimed for it are given back.
 */
import type { ClaimedDelivery } from '../../protocol/core-protocol.js';

export interface WaitingClaim {
  limit: number;
  answer(deliveries: ClaimedDelivery[]): void;
  /** Work notices for its target when it was taken for an acceptance. */
  noticesWhenTaken: number;
  cancelled: boolean;
}

export type TakenClaims = Map<string, WaitingClaim>;

export class WaitingClaims {
  readonly #waiting = new Map<string, WaitingClaim>();
  readonly #taken = new Map<string, WaitingClaim>();
  readonly #notices = new Map<string, number>();
  /** Per target, its work notices when a claim last found its queue empty. */
  readonly #emptyAt = new Map<string, number>();

  /** Work notices for `target` so far: a claim that found nothing waits only if none came since it began. */
  noticesOf(target: string): number {
    return this.#notices.get(target) ?? 0;
  }

  /**
   * The claim statement found everything queued for `target` (fewer than it asked for), after
   * `notices` notices. Every delivery queued since was announced (acceptances, sweeps, releases,
   * other processes; a lost notice is made good by the stall sweep's announcements), so until
   * the next notice a claim can wait without asking the database.
   */
  markEmpty(target: string, notices: number): void {
    this.#emptyAt.set(target, notices);
  }

  knownEmpty(target: string): boolean {
    return this.#emptyAt.get(target) === this.noticesOf(target);
  }

  /** Counts a work notice; takes out and returns the claim waiting for the target, if any. */
  notice(target: string): WaitingClaim | undefined {
    this.#notices.set(target, this.noticesOf(target) + 1);
    const waiting = this.#waiting.get(target);
    this.#waiting.delete(target);
    return waiting;
  }

  /** A claim for up to `limit` deliveries waits; a claim the target had waiting is answered empty. */
  wait(target: string, limit: number): Promise<ClaimedDelivery[]> {
    return new Promise((answer) => {
      this.#waiting.get(target)?.answer([]);
      this.#waiting.set(target, { limit, answer, noticesWhenTaken: 0, cancelled: false });
    });
  }

  /** Takes every waiting claim for an acceptance about to run; their rooms are what it may claim. */
  take(): { taken: TakenClaims; rooms: Map<string, number> } {
    const taken: TakenClaims = new Map(this.#waiting);
    this.#waiting.clear();
    for (const [target, claim] of taken) {
      claim.noticesWhenTaken = this.noticesOf(target);
      this.#taken.set(target, claim);
    }
    return { taken, rooms: new Map([...taken].map(([target, claim]) => [target, claim.limit])) };
  }

  /**
   * After the acceptance: claims it claimed deliveries for are answered with them; the others
   * wait again, unless work was announced for their target meanwhile (returned in `due`, to be
   * claimed now). Deliveries claimed for a claim cancelled meanwhile are returned in `orphaned`.
   */
  settle(
    taken: TakenClaims,
    claimed: ReadonlyMap<string, ClaimedDelivery[]>,
  ): { due: [string, WaitingClaim][]; orphaned: ClaimedDelivery[] } {
    const due: [string, WaitingClaim][] = [];
    const orphaned: ClaimedDelivery[] = [];
    for (const [target, claim] of taken) {
      if (this.#taken.get(target) === claim) this.#taken.delete(target);
      const deliveries = claimed.get(target) ?? [];
      if (claim.cancelled) orphaned.push(...deliveries);
      else if (deliveries.length > 0) claim.answer(deliveries);
      else if (this.noticesOf(target) !== claim.noticesWhenTaken) due.push([target, claim]);
      else if (this.#waiting.has(target)) claim.answer([]);
      else this.#waiting.set(target, claim);
    }
    return { due, orphaned };
  }

  /** The target's instance stopped: its claim is answered empty now. */
  cancel(target: string): void {
    this.#waiting.get(target)?.answer([]);
    this.#waiting.delete(target);
    const taken = this.#taken.get(target);
    if (taken) {
      taken.cancelled = true;
      taken.answer([]);
    }
  }

  /** Every claim is answered empty (the process stops). */
  cancelAll(): void {
    for (const target of new Set([...this.#waiting.keys(), ...this.#taken.keys()])) this.cancel(target);
  }
}
