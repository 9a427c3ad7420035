/**
 * GET /server-log (docs/api/server-log.md): the recent lines this process wrote to its log, for
 * administrators: a log line names users, partners, addresses and errors, which a viewer of
 * messages need not see. Secrets are censored when written and again, at any depth, when read.
 */
import { checkRole } from '../../auth/roles.js';
import type { ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { ServerLogAnswer, ServerLogQuery } from '../../schemas/server-log.js';

export function registerServerLogRoutes(router: ApiRouter, ctx: ApiContext): void {
  router.add({
    method: 'GET',
    url: '/server-log',
    tag: 'Server log',
    summary: "This process's most recent log lines, newest first, by level and component (admin only)",
    query: ServerLogQuery,
    response: ServerLogAnswer,
    errors: ['INSUFFICIENT_ROLE'],
    handler: async ({ query, caller }) => {
      checkRole(caller, 'admin');
      if (!ctx.recentLog) return { lines: [], components: [], kept: 0 };
      return ctx.recentLog.read(query);
    },
  });
}
