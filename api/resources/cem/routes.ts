/** Routes of /cem: certificate exchanges with AS2 partners and each partner's answering policy. */
import type { ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import {
  CemAnswer,
  CemExchangeCreate,
  CemExchangeRecord,
  CemListQuery,
  CemPolicyRecord,
  CemPolicyUpdate,
  cemExchangeList,
} from '../../schemas/cem.js';
import { idParams, listAnswer } from '../../schemas/common.js';
import {
  answerCemRequest,
  getCemExchange,
  getCemPolicy,
  listCemExchanges,
  sendCemRequest,
  setCemPolicy,
} from './service.js';

export function registerCemRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Certificate exchange';
  router.add({
    method: 'GET',
    url: '/cem/exchanges',
    tag,
    summary: 'List certificate exchanges: open ones (pending, overdue) first, soonest respond-by date first',
    query: CemListQuery,
    response: cemExchangeList,
    handler: async ({ query }) => listAnswer('exchanges', await listCemExchanges(ctx, query)),
  });
  router.add({
    method: 'POST',
    url: '/cem/exchanges',
    tag,
    summary: 'Send our new certificate to an AS2 partner in a certificate exchange request',
    body: CemExchangeCreate,
    status: 201,
    response: CemExchangeRecord,
    handler: ({ body, caller }) => sendCemRequest(ctx, caller, body),
  });
  router.add({
    method: 'GET',
    url: '/cem/exchanges/:id',
    tag,
    summary: 'One certificate exchange with its certificates and their answers',
    params: idParams,
    response: CemExchangeRecord,
    handler: ({ params }) => getCemExchange(ctx, params.id),
  });
  router.add({
    method: 'POST',
    url: '/cem/exchanges/:id/answer',
    tag,
    summary: "Accept or reject a partner's request; the response is sent to the partner over AS2",
    params: idParams,
    body: CemAnswer,
    response: CemExchangeRecord,
    handler: ({ params, body, caller }) => answerCemRequest(ctx, caller, params.id, body),
  });
  router.add({
    method: 'GET',
    url: '/cem/policies/:id',
    tag,
    summary: "How a partner's certificate exchange requests are answered; the id is the partner's",
    params: idParams,
    response: CemPolicyRecord,
    handler: ({ params }) => getCemPolicy(ctx, params.id),
  });
  router.add({
    method: 'PUT',
    url: '/cem/policies/:id',
    tag,
    summary: "Set how a partner's certificate exchange requests are answered; the id is the partner's",
    params: idParams,
    body: CemPolicyUpdate,
    response: CemPolicyRecord,
    handler: ({ params, body, caller }) => setCemPolicy(ctx, caller, params.id, body.policy),
  });
}
