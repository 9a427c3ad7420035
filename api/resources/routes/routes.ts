/** Routes of /routes (spec 2.3, 4.3). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { idParams, listAnswer } from '../../schemas/common.js';
import { RouteCreate, RouteListQuery, RouteRecord, RouteUpdate, routeList } from '../../schemas/route.js';
import { createRoute, deleteRoute, getRoute, listRoutes, updateRoute } from './service.js';

export function registerRouteRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Routes';
  router.add({
    method: 'GET',
    url: '/routes',
    tag,
    summary: 'List routes, by name',
    query: RouteListQuery,
    response: routeList,
    handler: async ({ query }) => listAnswer('routes', await listRoutes(freshEm(ctx), query)),
  });
  router.add({
    method: 'POST',
    url: '/routes',
    tag,
    summary: 'Create a route; applies to the next message dispatched',
    body: RouteCreate,
    status: 201,
    response: RouteRecord,
    errors: ['CONFLICT'],
    handler: ({ body, caller }) => createRoute(ctx, caller, body),
  });
  router.add({
    method: 'GET',
    url: '/routes/:id',
    tag,
    summary: 'Get a route',
    params: idParams,
    response: RouteRecord,
    handler: ({ params }) => getRoute(freshEm(ctx), params.id),
  });
  router.add({
    method: 'PUT',
    url: '/routes/:id',
    tag,
    summary: 'Update a route',
    params: idParams,
    body: RouteUpdate,
    response: RouteRecord,
    errors: ['CONFLICT'],
    handler: ({ params, body, caller }) => updateRoute(ctx, caller, params.id, body),
  });
  router.add({
    method: 'DELETE',
    url: '/routes/:id',
    tag,
    summary: 'Delete a route',
    params: idParams,
    status: 204,
    handler: ({ params, caller }) => deleteRoute(ctx, caller, params.id),
  });
}
