/** Routes of /organizations and /partners (docs/api/parties.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { idParams, listAnswer } from '../../schemas/common.js';
import { bodyInParts } from '../../validation.js';
import { organizationList, partnerList, PartyListQuery } from '../../schemas/party.js';
import {
  createParty,
  deleteParty,
  getParty,
  listParties,
  updateParty,
  organizationKind,
  partnerKind,
  type PartyKind,
} from './service.js';

function partyRoutes(router: ApiRouter, ctx: ApiContext, kind: PartyKind, path: string, listKey: string) {
  const tag = `${kind.label}s`;
  const word = kind.label.toLowerCase();
  const aWord = `${/^[aeiou]/.test(word) ? 'an' : 'a'} ${word}`;
  router.add({
    method: 'GET',
    url: path,
    tag,
    summary: `List ${word}s`,
    query: PartyListQuery,
    response: kind === organizationKind ? organizationList : partnerList,
    handler: async ({ query }) => listAnswer(listKey, await listParties(freshEm(ctx), kind, query)),
  });
  router.add({
    method: 'POST',
    url: path,
    tag,
    summary: `Create ${aWord}`,
    // Read here rather than by the router: every rejected property is named in one answer.
    bodyDoc: kind.createSchema,
    status: 201,
    response: kind.recordSchema,
    errors: ['CONFLICT'],
    handler: ({ request, caller }) =>
      createParty(ctx, caller, kind, ...bodyInParts(kind.createSchema, request.body)),
  });
  router.add({
    method: 'GET',
    url: `${path}/:id`,
    tag,
    summary: `Get ${aWord}`,
    params: idParams,
    response: kind.recordSchema,
    handler: ({ params }) => getParty(freshEm(ctx), kind, params.id),
  });
  router.add({
    method: 'PUT',
    url: `${path}/:id`,
    tag,
    summary: `Update ${aWord}`,
    params: idParams,
    bodyDoc: kind.updateSchema,
    response: kind.recordSchema,
    errors: ['CONFLICT'],
    handler: ({ params, request, caller }) =>
      updateParty(ctx, caller, kind, params.id, ...bodyInParts(kind.updateSchema, request.body)),
  });
  router.add({
    method: 'DELETE',
    url: `${path}/:id`,
    tag,
    summary: `Delete ${aWord}`,
    params: idParams,
    status: 204,
    handler: ({ params, caller }) => deleteParty(ctx, caller, kind, params.id),
  });
}

export function registerPartyRoutes(router: ApiRouter, ctx: ApiContext): void {
  partyRoutes(router, ctx, organizationKind, '/organizations', 'organizations');
  partyRoutes(router, ctx, partnerKind, '/partners', 'partners');
}
