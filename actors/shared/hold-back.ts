/**
 * How a source keeps pace with its targets. Every acceptance says how many deliveries wait at
 * the message's targets (queued in the last few seconds and not claimed yet; a target that is
 * not running stops counting after that, flow/commands/accept.ts). While that is more than the
 * source's limit, the source waits before it takes more work: a file-poller leaves the files in
 * the directory, an AS2 receiver answers its partner later. Without it, a source faster than
 * its targets stored messages far ahead of their delivery: receipts said "processed" while the
 * documents were seconds from the back office, and the backlog grew for as long as the load
 * lasted.
 *
 * The count is only renewed by an acceptance, and none comes while everything waits, so each
 * pause halves it: after a few pauses the source tries again and the next acceptance says
 * where the targets really are.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export class HoldBack {
  #queued = 0;

  constructor(
    /** Deliveries waiting at the targets beyond which the source waits. */
    private readonly maxQueued: number,
    /** How long one pause is, in milliseconds. */
    private readonly pauseMs = 50,
  ) {}

  /** What the latest acceptance said: deliveries waiting at its targets. */
  tell(queued: number): void {
    this.#queued = queued;
  }

  /** Whether a taker would wait now. */
  get behind(): boolean {
    return this.#queued > this.maxQueued;
  }

  /** Waits while the targets are that far behind (or until `halted` says to stop waiting). */
  async wait(halted: () => boolean = () => false): Promise<void> {
    while (this.behind && !halted()) {
      this.#queued = Math.floor(this.#queued / 2);
      await sleep(this.pauseMs);
    }
  }
}
