/** Routes of /routes (docs/api/routes.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { idParams, listAnswer } from '../../schemas/common.js';
import { RouteCreate, RouteListQuery, RouteRecord, RouteUpdate, routeList } from '../../schemas/route.js';
import { bodyInParts } from '../../validation.js';
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
    // Read here rather than by the router: the references are checked for the properties that
    // pass, so one answer names every rejected property.
    bodyDoc: RouteCreate,
    status: 201,
    response: RouteRecord,
    errors: ['CONFLICT'],
    handler: ({ request, caller }) => createRoute(ctx, caller, ...bodyInParts(RouteCreate, request.body)),
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
    bodyDoc: RouteUpdate,
    response: RouteRecord,
    errors: ['CONFLICT'],
    handler: ({ params, request, caller }) =>
      updateRoute(ctx, caller, params.id, ...bodyInParts(RouteUpdate, request.body)),
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
