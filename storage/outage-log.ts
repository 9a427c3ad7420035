/**
 * One line when the database stops answering and one when it answers again, whatever number
 * of statements failed in between. While PostgreSQL restarted for 15 s, the dispatcher's
 * sweeps, claims and results logged 56 error lines, which buried the one fact an operator
 * needs: the database was away from this time to that, and pier kept its work meanwhile.
 */
import type { Logger } from 'pino';

export class OutageLog {
  #since: Date | undefined;
  #failures = 0;

  constructor(private readonly logger: Logger) {}

  /**
   * A statement failed: the first failure of an outage is logged, the others counted. A failure
   * that is not the database being away (a statement's own error) is logged every time.
   */
  failed(what: string, error: unknown): void {
    if (!isDatabaseAway(error)) {
      this.logger.error({ err: error, what }, `${what} failed`);
      return;
    }
    this.#failures++;
    if (this.#since) {
      this.logger.debug({ err: error, what }, 'database still not answering');
      return;
    }
    this.#since = new Date();
    this.logger.error(
      { err: error, what },
      'the database does not answer; work in hand is kept and tried again until it does',
    );
  }

  /** A statement succeeded: an outage, if there was one, is over. */
  answered(): void {
    if (!this.#since) return;
    const seconds = Math.round((Date.now() - this.#since.getTime()) / 1000);
    this.logger.info(
      { down_seconds: seconds, failed_statements: this.#failures },
      'the database answers again',
    );
    this.#since = undefined;
    this.#failures = 0;
  }
}

/** Network errors of the driver's socket, and PostgreSQL's own codes for a server that went or is starting. */
const awayCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
const awaySqlStates = /^(08|57P0[1-3])/;
/** The same in words, for an error that crossed a thread's channel and lost its code. */
const awayWords =
  /\b(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|EHOSTUNREACH)\b|Connection terminated|connection is closed|Client has encountered a connection error|the database system is (starting up|shutting down)|terminating connection due to administrator command/i;

/** Whether an error says the database is not reachable, rather than that a statement was wrong. */
export function isDatabaseAway(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (awayCodes.has(code) || awaySqlStates.test(code))) return true;
    if (awayWords.test(current.message)) return true;
    if (current instanceof AggregateError && current.errors.some(isDatabaseAway)) return true;
    current = current.cause;
  }
  return typeof current === 'string' && awayWords.test(current);
}
