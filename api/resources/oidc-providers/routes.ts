/** Routes of /oidc-providers (docs/api/oidc-providers.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { idParams, listAnswer } from '../../schemas/common.js';
import {
  OidcProviderCreate,
  OidcProviderListQuery,
  OidcProviderRecord,
  OidcProviderUpdate,
  oidcProviderList,
} from '../../schemas/oidc-provider.js';
import {
  createOidcProvider,
  deleteOidcProvider,
  getOidcProvider,
  listOidcProviders,
  updateOidcProvider,
} from './service.js';

export function registerOidcProviderRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Identity providers';
  router.add({
    method: 'GET',
    url: '/oidc-providers',
    tag,
    summary: 'List identity providers, by name',
    query: OidcProviderListQuery,
    response: oidcProviderList,
    handler: async ({ query }) => listAnswer('oidc_providers', await listOidcProviders(freshEm(ctx), query)),
  });
  router.add({
    method: 'POST',
    url: '/oidc-providers',
    tag,
    summary: 'Create an identity provider',
    body: OidcProviderCreate,
    status: 201,
    response: OidcProviderRecord,
    errors: ['CONFLICT'],
    handler: ({ body, caller }) => createOidcProvider(ctx, caller, body),
  });
  router.add({
    method: 'GET',
    url: '/oidc-providers/:id',
    tag,
    summary: 'Get an identity provider',
    params: idParams,
    response: OidcProviderRecord,
    handler: ({ params }) => getOidcProvider(ctx, params.id),
  });
  router.add({
    method: 'PUT',
    url: '/oidc-providers/:id',
    tag,
    summary: 'Update an identity provider; client_secret is kept when left out',
    params: idParams,
    body: OidcProviderUpdate,
    response: OidcProviderRecord,
    errors: ['CONFLICT'],
    handler: ({ params, body, caller }) => updateOidcProvider(ctx, caller, params.id, body),
  });
  router.add({
    method: 'DELETE',
    url: '/oidc-providers/:id',
    tag,
    summary: 'Delete an identity provider',
    params: idParams,
    status: 204,
    handler: ({ params, caller }) => deleteOidcProvider(ctx, caller, params.id),
  });
}
