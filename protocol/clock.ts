/**
 * The time a process's flow reads, as data that crosses to its actor threads: a function cannot
 * cross a thread, a SharedArrayBuffer can, and every thread given it reads the same cell. The
 * real clock needs none (`realNow`); a test that moves time makes a `SharedClock`, gives it to
 * the server (api/server.ts), and the main thread and every target and source read it alike.
 */

/** The real clock: what every production process reads, on every thread. */
export const realNow = (): Date => new Date();

/** Cell 0: milliseconds; cell 1: 0 when they are the time itself (stopped), 1 when an offset from the real clock. */
const cells = 2;
const stopped = 0n;
const following = 1n;

export class SharedClock {
  readonly #cells: BigInt64Array;

  private constructor(readonly buffer: SharedArrayBuffer) {
    this.#cells = new BigInt64Array(buffer);
  }

  /** A clock stopped at `ms` (epoch milliseconds): it moves only when the test moves it. */
  static stoppedAt(ms: number): SharedClock {
    const clock = new SharedClock(new SharedArrayBuffer(cells * BigInt64Array.BYTES_PER_ELEMENT));
    clock.set(ms);
    return clock;
  }

  /** A clock that runs with the real one, `offsetMs` ahead (behind when negative). */
  static ahead(offsetMs: number): SharedClock {
    const clock = new SharedClock(new SharedArrayBuffer(cells * BigInt64Array.BYTES_PER_ELEMENT));
    clock.follow(offsetMs);
    return clock;
  }

  /** The clock a thread was given in its start data (protocol/worker-host/start-data.ts). */
  static of(buffer: SharedArrayBuffer): SharedClock {
    if (buffer.byteLength !== cells * BigInt64Array.BYTES_PER_ELEMENT)
      throw new Error('Not a shared clock: its buffer has the wrong size');
    return new SharedClock(buffer);
  }

  now(): Date {
    const value = Number(Atomics.load(this.#cells, 0));
    return new Date(Atomics.load(this.#cells, 1) === following ? Date.now() + value : value);
  }

  /** Stops the clock at `ms` (epoch milliseconds). */
  set(ms: number): void {
    Atomics.store(this.#cells, 1, stopped);
    Atomics.store(this.#cells, 0, BigInt(Math.round(ms)));
  }

  /** Makes the clock run with the real one, `offsetMs` ahead. */
  follow(offsetMs: number): void {
    Atomics.store(this.#cells, 1, following);
    Atomics.store(this.#cells, 0, BigInt(Math.round(offsetMs)));
  }

  /** Moves the clock by `ms` (back when negative), stopped or running. */
  advance(ms: number): void {
    Atomics.add(this.#cells, 0, BigInt(Math.round(ms)));
  }
}

/** The `now` of a thread given `buffer`, or the real clock without one. */
export function clockOf(buffer: SharedArrayBuffer | undefined): () => Date {
  if (!buffer) return realNow;
  const clock = SharedClock.of(buffer);
  return () => clock.now();
}
