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
 *
 * A claim answered with fewer deliveries than it asked for leaves its target room (`rest`),
 * and the target's next claim is on its way (a delivery loop claims again at once after
 * deliveries came). Acceptances that run before it arrives claim into that room too and keep
 * what they claimed here (`held`) for that claim, which gets them without a statement. Before,
 * each such acceptance queued its deliveries and the next claim ran the claim statement for
 * them: 0.3 claim statements per received message at concurrency 4 (benchmarks/README.md,
 * as2-receive, "Claims kept for the next claim"). Held deliveries never exceed what the target
 * had room for when last answered; a cancel gives them back.
 */
import type { ClaimedDelivery } from '../../protocol/core-protocol.js';

export interface WaitingClaim {
  limit: number;
  answer(deliveries: ClaimedDelivery[]): void;
  /** Work notices for its target when it was taken for an acceptance. */
  noticesWhenTaken: number;
  cancelled: boolean;
}

/** A target's rest handed to an acceptance; `cancelled` once the target's instance stopped. */
interface TakenRest {
  cancelled: boolean;
}

export interface TakenClaims {
  claims: Map<string, WaitingClaim>;
  /** Targets whose rest the acceptance may claim into. */
  rests: Map<string, TakenRest>;
}

export class WaitingClaims {
  readonly #waiting = new Map<string, WaitingClaim>();
  readonly #taken = new Map<string, WaitingClaim>();
  readonly #notices = new Map<string, number>();
  /** Per target, its work notices when a claim last found its queue empty. */
  readonly #emptyAt = new Map<string, number>();
  /** Per target, the room its last answered claim left, until its next claim arrives. */
  readonly #rest = new Map<string, number>();
  /** Per target, deliveries acceptances claimed into its rest, for its next claim. */
  readonly #held = new Map<string, ClaimedDelivery[]>();
  /** Rests handed to the acceptance in flight. */
  readonly #restsTaken = new Map<string, TakenRest>();
  /** Targets whose instance stopped, until their next claim: a claim statement in flight leaves no rest. */
  readonly #stopped = new Set<string>();
  /** The process stops: no more rests. */
  #closed = false;

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

  /**
   * A target's claim was answered with `count` deliveries: what it asked for beyond them is its
   * rest until its next claim arrives.
   */
  answered(target: string, limit: number, count: number): void {
    if (count > 0 && count < limit && !this.#closed && !this.#stopped.has(target))
      this.#rest.set(target, limit - count);
    else this.#rest.delete(target);
  }

  /**
   * A target's claim arrives: its rest ends (the claim says its room now), and it gets the
   * deliveries held for it, up to its limit, if there are any.
   */
  arrive(target: string, limit: number): ClaimedDelivery[] | undefined {
    this.#stopped.delete(target);
    this.#rest.delete(target);
    const held = this.#held.get(target);
    if (!held) return undefined;
    const handed = held.splice(0, limit);
    if (held.length === 0) this.#held.delete(target);
    this.answered(target, limit, handed.length);
    return handed.length > 0 ? handed : undefined;
  }

  /**
   * Takes every waiting claim, and every target's rest, for an acceptance about to run: their
   * rooms are what it may claim.
   */
  take(): { taken: TakenClaims; rooms: Map<string, number> } {
    const claims = new Map(this.#waiting);
    this.#waiting.clear();
    const rooms = new Map<string, number>();
    for (const [target, claim] of claims) {
      claim.noticesWhenTaken = this.noticesOf(target);
      this.#taken.set(target, claim);
      rooms.set(target, claim.limit);
    }
    const rests = new Map<string, TakenRest>();
    for (const [target, rest] of this.#rest) {
      const room = rest - (this.#held.get(target)?.length ?? 0);
      if (room <= 0 || rooms.has(target) || this.#restsTaken.has(target)) continue;
      const taken: TakenRest = { cancelled: false };
      rests.set(target, taken);
      this.#restsTaken.set(target, taken);
      rooms.set(target, room);
    }
    return { taken: { claims, rests }, rooms };
  }

  /**
   * After the acceptance: claims it claimed deliveries for are answered with them; the others
   * wait again, unless work was announced for their target meanwhile (returned in `due`, to be
   * claimed now). Deliveries claimed into a rest go to the target's claim if one waits now, else
   * are held for it. Deliveries claimed for a target whose instance stopped meanwhile are
   * returned in `orphaned`.
   */
  settle(
    taken: TakenClaims,
    claimed: ReadonlyMap<string, ClaimedDelivery[]>,
  ): { due: [string, WaitingClaim][]; orphaned: ClaimedDelivery[] } {
    const due: [string, WaitingClaim][] = [];
    const orphaned: ClaimedDelivery[] = [];
    for (const [target, claim] of taken.claims) {
      if (this.#taken.get(target) === claim) this.#taken.delete(target);
      const deliveries = claimed.get(target) ?? [];
      if (claim.cancelled) orphaned.push(...deliveries);
      else if (deliveries.length > 0) this.#answer(target, claim, deliveries);
      else if (this.noticesOf(target) !== claim.noticesWhenTaken) due.push([target, claim]);
      else if (this.#waiting.has(target)) claim.answer([]);
      else this.#waiting.set(target, claim);
    }
    for (const [target, rest] of taken.rests) {
      if (this.#restsTaken.get(target) === rest) this.#restsTaken.delete(target);
      const deliveries = claimed.get(target) ?? [];
      if (rest.cancelled) orphaned.push(...deliveries);
      else if (deliveries.length > 0) this.#hold(target, deliveries);
    }
    return { due, orphaned };
  }

  #answer(target: string, claim: WaitingClaim, deliveries: ClaimedDelivery[]): void {
    this.answered(target, claim.limit, deliveries.length);
    claim.answer(deliveries);
  }

  /** Deliveries claimed into a target's rest: to its claim that waits now, else held for its next. */
  #hold(target: string, deliveries: ClaimedDelivery[]): void {
    const held = this.#held.get(target) ?? [];
    held.push(...deliveries);
    this.#held.set(target, held);
    const waiting = this.#waiting.get(target);
    if (!waiting) return;
    this.#waiting.delete(target);
    waiting.answer(this.arrive(target, waiting.limit) ?? []);
  }

  /**
   * The target's instance stopped: its claim is answered empty now, and the deliveries held
   * for it are returned, to be given back.
   */
  cancel(target: string): ClaimedDelivery[] {
    this.#waiting.get(target)?.answer([]);
    this.#waiting.delete(target);
    const taken = this.#taken.get(target);
    if (taken) {
      taken.cancelled = true;
      taken.answer([]);
    }
    const rest = this.#restsTaken.get(target);
    if (rest) rest.cancelled = true;
    this.#rest.delete(target);
    this.#stopped.add(target);
    const held = this.#held.get(target) ?? [];
    this.#held.delete(target);
    return held;
  }

  /** Every claim is answered empty (the process stops); returns every held delivery, to be given back. */
  cancelAll(): ClaimedDelivery[] {
    this.#closed = true;
    const targets = [this.#waiting, this.#taken, this.#restsTaken, this.#rest, this.#held].flatMap((m) => [
      ...m.keys(),
    ]);
    return [...new Set(targets)].flatMap((target) => this.cancel(target));
  }
}
