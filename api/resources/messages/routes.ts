/** Routes of /messages (docs/api/messages.md). */
import { freshEm, type ApiContext } from '../../context.js';
import type { ApiRouter } from '../../http/router.js';
import { listAnswer } from '../../schemas/common.js';
import {
  DeliveryParams,
  MessageListQuery,
  MessageParams,
  MessageRecord,
  MessageUpload,
  messageList,
  PayloadQuery,
} from '../../schemas/message.js';
import { servePayload } from './payload.js';
import { acceptJsonMessage, sendJsonBody } from './send-json.js';
import { EdiJsonSend } from '../../schemas/edi-json.js';
import { servePayloadJson, wantsJson } from './payload-json.js';
import { getMessage, listMessages, redeliverDelivery, redispatchMessage } from './service.js';
import { acceptUpload } from './upload.js';
import { limits } from '../../../limits/limits.js';

export function registerMessageRoutes(router: ApiRouter, ctx: ApiContext): void {
  const tag = 'Messages';
  router.add({
    method: 'GET',
    url: '/messages',
    tag,
    summary: 'List messages, newest first',
    query: MessageListQuery,
    response: messageList,
    handler: async ({ query }) => listAnswer('messages', await listMessages(freshEm(ctx), query)),
  });
  router.add({
    method: 'POST',
    url: '/messages',
    tag,
    summary: 'Send a file by hand (multipart: from, to, file, optional target); answers the message',
    consumes: 'multipart',
    // The file's limit is enforced while it streams; the body may carry the form around it.
    bodyLimit: limits.maxUploadBytes + 1024 * 1024,
    bodyDoc: MessageUpload,
    status: 201,
    response: MessageRecord,
    errors: ['MISSING_HEADER', 'STORAGE_UNAVAILABLE'],
    handler: ({ caller, request }) => acceptUpload(ctx, caller, request),
  });
  // EDI as JSON has a path of its own: the upload above takes multipart only, as the contract says.
  router.add({
    method: 'POST',
    url: '/messages/edi',
    tag,
    summary:
      'Send EDI given as JSON: a whole interchange, or documents pier puts in envelopes (docs/edi-json.md); answers the message',
    // As large as a file sent by hand, with room for the JSON around it.
    bodyLimit: limits.maxUploadBytes + 1024 * 1024,
    // The body goes to a spool file as it arrives, never into memory whole (send-json.ts).
    jsonBody: sendJsonBody(ctx),
    bodyDoc: EdiJsonSend,
    status: 201,
    response: MessageRecord,
    errors: ['STORAGE_UNAVAILABLE'],
    handler: ({ caller, request }) => acceptJsonMessage(ctx, caller, request),
  });
  router.add({
    method: 'GET',
    url: '/messages/:id',
    tag,
    summary: 'Get a message with its deliveries, history and payload stages',
    params: MessageParams,
    response: MessageRecord,
    handler: ({ params }) => getMessage(freshEm(ctx), params.id),
  });
  router.add({
    method: 'GET',
    url: '/messages/:id/payload',
    tag,
    summary: 'Download a payload stage, as stored or as EDI JSON (docs/edi-json.md)',
    params: MessageParams,
    query: PayloadQuery,
    raw: {
      mediaType: 'application/octet-stream',
      description:
        'The stage as stored; with format=json or Accept: application/json, the interchange in its JSON form',
      alternatives: { 'application/json': 'EdiJson' },
    },
    errors: ['STORAGE_UNAVAILABLE', 'NOT_ACCEPTABLE'],
    handler: ({ params, query, request, reply }) =>
      wantsJson(request, query.format)
        ? servePayloadJson(ctx, params.id, query.stage, reply)
        : servePayload(ctx, params.id, query.stage, reply),
  });
  router.add({
    method: 'POST',
    url: '/messages/:id/redispatch',
    tag,
    summary: 'Dispatch a message again (docs/api/lifecycles.md#delivery-state)',
    params: MessageParams,
    response: MessageRecord,
    errors: ['NOT_REDISPATCHABLE'],
    handler: ({ params, caller }) => redispatchMessage(ctx, caller, params.id),
  });
  router.add({
    method: 'POST',
    url: '/messages/:id/deliveries/:delivery_id/redeliver',
    tag,
    summary: 'Deliver one delivery again from the start (docs/api/lifecycles.md#delivery-state)',
    params: DeliveryParams,
    response: MessageRecord,
    errors: ['NOT_REDELIVERABLE'],
    handler: ({ params, caller }) => redeliverDelivery(ctx, caller, params.id, params.delivery_id),
  });
}
