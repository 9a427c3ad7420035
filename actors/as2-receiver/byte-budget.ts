/**
 * A budget of bytes shared by the large messages being opened at once:
 * opening holds about a message's size in memory (the plaintext it verifies), so three 100 MiB
 * messages opened together cost three times that. A message waits (in arrival order) until its
 * size fits in what is left; its body is on disk meanwhile. One message larger than the whole
 * budget is opened alone rather than never.
 */
export class ByteBudget {
  #used = 0;
  #holders = 0;
  readonly #waiting: { bytes: number; start: () => void }[] = [];

  constructor(readonly bytes: number) {}

  /** Resolves when `bytes` may be used; call the returned function when done with them. */
  async take(bytes: number): Promise<() => void> {
    if (this.#waiting.length > 0 || !this.#fits(bytes)) {
      await new Promise<void>((start) => this.#waiting.push({ bytes, start }));
    } else {
      this.#hold(bytes);
    }
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#used -= bytes;
      this.#holders--;
      this.#next();
    };
  }

  /** How many wait for their turn (for the tests and logs). */
  get waiting(): number {
    return this.#waiting.length;
  }

  #fits(bytes: number): boolean {
    return this.#holders === 0 || this.#used + bytes <= this.bytes;
  }

  #hold(bytes: number): void {
    this.#used += bytes;
    this.#holders++;
  }

  #next(): void {
    while (this.#waiting.length > 0 && this.#fits(this.#waiting[0]!.bytes)) {
      const first = this.#waiting.shift()!;
      this.#hold(first.bytes);
      first.start();
    }
  }
}
