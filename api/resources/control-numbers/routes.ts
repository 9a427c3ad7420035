/** Routes of /partners/{id}/control-numbers (docs/edi-json.md#control-numbers). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { idParams } from '../../schemas/common.js';
import { ControlNumberParams, ControlNumberReset, controlNumberList } from '../../schemas/control-number.js';
import { listControlNumbers, resetControlNumber } from './service.js';

export function registerControlNumberRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Partners';
  router.add({
    method: 'GET',
    url: '/partners/:id/control-numbers',
    tag,
    summary: "The partner's EDI control numbers: the last given per direction and level",
    params: idParams,
    response: controlNumberList,
    handler: async ({ params }) => ({
      control_numbers: await listControlNumbers(freshEm(ctx), params.id),
    }),
  });
  router.add({
    method: 'PUT',
    url: '/partners/:id/control-numbers/:direction/:level',
    tag,
    summary: 'Reset a control number (administrators only; recorded in the audit log)',
    params: ControlNumberParams,
    body: ControlNumberReset,
    response: controlNumberList,
    handler: async ({ params, body, caller }) => ({
      control_numbers: await resetControlNumber(
        ctx,
        caller,
        params.id,
        params.direction,
        params.level,
        body.last_value,
      ),
    }),
  });
}
