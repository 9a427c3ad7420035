/** Routes of /api-tokens (docs/api/api-tokens.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { ApiTokenCreate, ApiTokenCreated, ApiTokenListQuery, apiTokenList } from '../../schemas/api-token.js';
import { idParams, listAnswer } from '../../schemas/common.js';
import { createApiToken, listApiTokens, revokeApiToken } from './service.js';

export function registerApiTokenRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'API tokens';
  router.add({
    method: 'GET',
    url: '/api-tokens',
    tag,
    summary: "List every local service account's tokens, newest first",
    query: ApiTokenListQuery,
    response: apiTokenList,
    handler: async ({ query }) => listAnswer('api_tokens', await listApiTokens(ctx, freshEm(ctx), query)),
  });
  router.add({
    method: 'POST',
    url: '/api-tokens',
    tag,
    summary: 'Create a token; the only answer that carries its value',
    body: ApiTokenCreate,
    status: 201,
    response: ApiTokenCreated,
    handler: ({ body, caller }) => createApiToken(ctx, caller, body),
  });
  router.add({
    method: 'DELETE',
    url: '/api-tokens/:id',
    tag,
    summary: 'Revoke a token',
    params: idParams,
    status: 204,
    handler: ({ params, caller }) => revokeApiToken(ctx, caller, params.id),
  });
}
