/** Routes of /service-accounts (docs/api/service-accounts.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { idParams, listAnswer } from '../../schemas/common.js';
import {
  ServiceAccountCreate,
  ServiceAccountListQuery,
  ServiceAccountRecord,
  ServiceAccountUpdate,
  serviceAccountList,
} from '../../schemas/service-account.js';
import {
  createServiceAccount,
  deleteServiceAccount,
  getServiceAccount,
  listServiceAccounts,
  updateServiceAccount,
} from './service.js';

export function registerServiceAccountRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Service accounts';
  router.add({
    method: 'GET',
    url: '/service-accounts',
    tag,
    summary: 'List service accounts, by name',
    query: ServiceAccountListQuery,
    response: serviceAccountList,
    handler: async ({ query }) =>
      listAnswer('service_accounts', await listServiceAccounts(ctx, freshEm(ctx), query)),
  });
  router.add({
    method: 'POST',
    url: '/service-accounts',
    tag,
    summary: 'Create a service account',
    body: ServiceAccountCreate,
    status: 201,
    response: ServiceAccountRecord,
    errors: ['CONFLICT'],
    handler: ({ body, caller }) => createServiceAccount(ctx, caller, body),
  });
  router.add({
    method: 'GET',
    url: '/service-accounts/:id',
    tag,
    summary: 'Get a service account',
    params: idParams,
    response: ServiceAccountRecord,
    handler: ({ params }) => getServiceAccount(ctx, freshEm(ctx), params.id),
  });
  router.add({
    method: 'PUT',
    url: '/service-accounts/:id',
    tag,
    summary: 'Update a service account',
    params: idParams,
    body: ServiceAccountUpdate,
    response: ServiceAccountRecord,
    errors: ['CONFLICT'],
    handler: ({ params, body, caller }) => updateServiceAccount(ctx, caller, params.id, body),
  });
  router.add({
    method: 'DELETE',
    url: '/service-accounts/:id',
    tag,
    summary: 'Delete a service account, revoking its tokens',
    params: idParams,
    status: 204,
    handler: ({ params, caller }) => deleteServiceAccount(ctx, caller, params.id),
  });
}
