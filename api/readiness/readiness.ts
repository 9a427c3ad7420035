/**
 * Where a pier process is in its life, for load balancers and service managers: starting
 * (the HTTP port is open, the message flow not yet), ready, or draining (a stop signal came:
 * work in hand finishes, nothing new is taken). GET /health says only that the process lives;
 * GET /ready says whether to send it work (docs/decisions/readiness-is-get-ready-get-health-stays-liveness.md).
 */
export type ReadinessState = 'starting' | 'ready' | 'draining';

export class Readiness {
  #state: ReadinessState;

  /** A context that no server starts (the CLI, a test's app) is ready from the beginning. */
  constructor(initial: ReadinessState = 'starting') {
    this.#state = initial;
  }

  get state(): ReadinessState {
    return this.#state;
  }

  ready(): void {
    if (this.#state === 'starting') this.#state = 'ready';
  }

  drain(): void {
    this.#state = 'draining';
  }
}
