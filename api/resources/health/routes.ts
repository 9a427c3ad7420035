/** GET /health: public, unwrapped, 503 when the database does not answer (docs/api/health.md). */
import { ping } from '../../../storage/repositories/database.js';
import type { ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { limits } from '../../../limits/limits.js';

const HealthAnswer = z.object({
  status: z.enum(['healthy', 'unhealthy']),
  timestamp: z.string(),
  database: z.enum(['up', 'down']),
});

export async function databaseUp(ctx: ApiContext): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), limits.healthDatabaseTimeoutMs);
  });
  const probe = ping(ctx.orm.em)
    .then(() => true)
    .catch(() => false);
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealthRoutes(router: ApiRouter, ctx: ApiContext): void {
  router.add({
    method: 'GET',
    url: '/health',
    tag: 'Health',
    summary: 'Service health; public and not wrapped in the envelope',
    public: true,
    raw: { mediaType: 'application/json', description: 'healthy (200) or unhealthy (503)' },
    response: HealthAnswer,
    handler: ({ reply }) => answerHealth(ctx, reply),
  });
}

export async function answerHealth(ctx: ApiContext, reply: FastifyReply): Promise<FastifyReply> {
  const up = await databaseUp(ctx);
  return reply.code(up ? 200 : 503).send({
    status: up ? 'healthy' : 'unhealthy',
    timestamp: ctx.now().toISOString(),
    database: up ? 'up' : 'down',
  });
}
