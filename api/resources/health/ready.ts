/**
 * GET /ready: whether to send this process work. 200 `{status: "ready", …}` only when it has
 * started, is not draining, and both its database and its payload store answer; otherwise 503
 * with the state and what is down. Public and unwrapped like /health, which stays liveness.
 */
import type { FastifyReply } from 'fastify';
import { probeStorage } from '../../../storage/payloads/probe.js';
import { selectionOf } from '../../../storage/payloads/selection.js';
import type { ApiContext } from '../../context.js';
import { databaseUp } from './routes.js';
import { limits } from '../../../limits/limits.js';

export class StoreCheck {
  #last: { at: number; up: Promise<boolean> } | undefined;

  constructor(private readonly ctx: ApiContext) {}

  up(): Promise<boolean> {
    const now = Date.now();
    if (this.#last && now - this.#last.at < limits.storeCheckEveryMs) return this.#last.up;
    const selection =
      this.ctx.runtime?.payloads.selection ?? selectionOf(this.ctx.storageInUse, this.ctx.options.dataDir);
    const up = probeStorage(selection, { deadlineMs: limits.storeCheckDeadlineMs })
      .then((result) => result.ok)
      .catch(() => false);
    this.#last = { at: now, up };
    return up;
  }
}

export async function answerReady(
  ctx: ApiContext,
  store: StoreCheck,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const state = ctx.readiness.state;
  const [database, payloads] = await Promise.all([databaseUp(ctx), store.up()]);
  const ready = state === 'ready' && database && payloads;
  return reply.code(ready ? 200 : 503).send({
    status: ready ? 'ready' : state === 'ready' ? 'unready' : state,
    timestamp: ctx.now().toISOString(),
    database: database ? 'up' : 'down',
    payload_store: payloads ? 'up' : 'down',
  });
}
