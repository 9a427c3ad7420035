/**
 * GET /services and POST /services/{type}/{name}/{action} (docs/api/services.md, docs/api/lifecycles.md#service-instance-status). Actions
 * wait for completion. Codes pier chose where the contract names none (docs/errors.md): 403 FORBIDDEN on the API server,
 * 409 INVALID_STATE for a move the lifecycle table lacks, 500 START_FAILED with the reason.
 */
import { isPluginType } from '../../../actors/index.js';
import { type Action, actions } from '../../../runtime/index.js';
import { runtimeOf, type ApiContext } from '../../context.js';
import { ApiError, notFound, validationError } from '../../errors.js';
import type { ApiRouter } from '../../http/router.js';
import {
  apiServerName,
  apiServerType,
  ServiceActionParams,
  ServiceList,
  ServiceRecord,
} from '../../schemas/service.js';

export function registerServiceRoutes(router: ApiRouter, ctx: ApiContext): void {
  const startedAt = ctx.now();
  const apiServer = (): ServiceRecord => ({
    type: apiServerType,
    name: apiServerName,
    status: 'running',
    error: null,
    controllable: false,
    state_since: startedAt.toISOString(),
    actions: [],
    restart_needed: false,
  });
  const tag = 'Services';
  router.add({
    method: 'GET',
    url: '/services',
    tag,
    summary:
      'Every plugin instance this process runs, and the API server; with what is wanted of each and the state each live process reports',
    response: ServiceList,
    handler: async () => [apiServer(), ...(await runtimeOf(ctx).supervisor.list())],
  });
  router.add({
    method: 'POST',
    url: '/services/:type/:name/:action',
    tag,
    summary:
      'Start, stop or restart an instance; answers when the action has completed here. Every process follows the action, and it holds across restarts',
    params: ServiceActionParams,
    response: ServiceRecord,
    errors: ['FORBIDDEN', 'INVALID_STATE', 'START_FAILED'],
    handler: async ({ params, caller, request }) => {
      if (params.type === apiServerType && params.name === apiServerName) {
        throw new ApiError('FORBIDDEN', 'The API server cannot be controlled through its own API');
      }
      if (!(actions as readonly string[]).includes(params.action)) {
        throw validationError({ action: 'Must be one of: start, stop, restart' });
      }
      if (!isPluginType(params.type)) throw notFound(`Service ${params.type}/${params.name}`);
      const action = params.action as Action;
      request.log.info(
        { user: caller.actor, service: `${params.type}/${params.name}`, action },
        'service action',
      );
      // A refusal of the supervisor is answered by the one table in api/runtime-errors.ts.
      const supervisor = runtimeOf(ctx).supervisor;
      const view = await supervisor.act(params.type, params.name, action);
      const after =
        (await supervisor.list()).find((s) => s.type === view.type && s.name === view.name) ?? view;
      await ctx.operatorActions.record(caller, {
        action,
        kind: 'service',
        record_id: `${params.type}/${params.name}`.slice(0, 64),
        record_name: `${params.type}/${params.name}`,
        changes: [{ field: 'status', new: after.status }],
      });
      return after;
    },
  });
}
