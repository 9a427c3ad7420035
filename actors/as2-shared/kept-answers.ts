/**
 * Answers of the core kept for a few seconds, so a burst of messages between the same two
 * parties asks once (a profile read costs several queries and opens private keys). A changed
 * profile counts within `keepMs`; a failed question is forgotten at once.
 */
export class KeptAnswers<T> {
  readonly #kept = new Map<string, { at: number; answer: Promise<T> }>();

  constructor(
    private readonly ask: (key: string) => Promise<T>,
    private readonly keepMs = 5000,
    private readonly maxKept = 1000,
  ) {}

  forget(key: string): void {
    this.#kept.delete(key);
  }

  get(key: string): Promise<T> {
    const now = Date.now();
    const hit = this.#kept.get(key);
    if (hit && now - hit.at < this.keepMs) return hit.answer;
    if (this.#kept.size >= this.maxKept) this.#kept.clear();
    const answer = this.ask(key);
    answer.catch(() => this.#kept.delete(key));
    this.#kept.set(key, { at: now, answer });
    return answer;
  }
}
