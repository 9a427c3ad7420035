/** Route of /partner-status (docs/api/parties.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { listAnswer } from '../../schemas/common.js';
import { partnerStatusList, PartnerStatusQuery } from '../../schemas/partner-status.js';
import { listPartnerStatus } from './service.js';

export function registerPartnerStatusRoutes(router: ApiRouter, ctx: ApiContext): void {
  router.add({
    method: 'GET',
    url: '/partner-status',
    tag: 'Partners',
    summary:
      'List partners with their standing: last message each way, reachability, the soonest certificate expiry',
    query: PartnerStatusQuery,
    response: partnerStatusList,
    handler: async ({ query }) =>
      listAnswer('partners', await listPartnerStatus(freshEm(ctx), ctx.now(), query)),
  });
}
