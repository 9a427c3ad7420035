/**
 * GET /messages/{id}/payload (docs/api/messages.md): a stage's bytes, from its payload row when kept
 * inline, else streamed from the store. Without `stage`, unpacked or the first stage the
 * message has. A stage the message lacks is 404 NOT_FOUND, and no other stage is served
 * instead.
 */
import type { FastifyReply } from 'fastify';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PayloadMissing, type StoredStage } from '../../../storage/payloads/store.js';
import { findInlineStages, findMessage, findMessageParts } from '../../../storage/repositories/messages.js';
import { freshEm, runtimeOf, type ApiContext } from '../../context.js';
import { ApiError, notFound } from '../../errors.js';
import { payloadStages, type PayloadStageName } from '../../schemas/message.js';
import { contentDisposition } from '../../../actors/shared/content-disposition.js';

/** `message` is served as its headers followed by the received body. */
const partsOf = (stage: PayloadStageName): StoredStage[] =>
  stage === 'message' ? ['headers', 'received'] : [stage];

function downloadName(id: string, fileName: string, stage: PayloadStageName): string {
  switch (stage) {
    case 'unpacked':
      return fileName;
    case 'receipt':
      return `${id}-receipt.eml`;
    case 'message':
      return `${id}-message.eml`;
    default:
      return `${id}-${stage}`;
  }
}

async function concatenate(streams: (() => Promise<Readable>)[]): Promise<Readable> {
  const out = new PassThrough();
  void (async () => {
    try {
      for (const open of streams) await pipeline(await open(), out, { end: false });
      out.end();
    } catch (error) {
      out.destroy(error as Error);
    }
  })();
  return out;
}

/** A stage opened for reading: its bytes as a stream, its size and the message it belongs to. */
export interface OpenedPayload {
  stage: PayloadStageName;
  size: number;
  fileName: string;
  body: Readable;
}

/** Opens a stage (or the first the message has); 404 NOT_FOUND when the message or the stage is missing. */
export async function openPayload(
  ctx: ApiContext,
  id: string,
  asked: PayloadStageName | undefined,
): Promise<OpenedPayload> {
  const em = freshEm(ctx);
  const message = await findMessage(em, id);
  if (!message) throw notFound('Message');
  const { payloads } = await findMessageParts(em, [id]);
  const sizes = new Map(payloads.map((p) => [p.stage, Number(p.size_bytes)]));
  const has = (stage: PayloadStageName) => partsOf(stage).every((s) => sizes.has(s));
  const stage = asked ?? payloadStages.find(has);
  if (!stage || !has(stage)) {
    throw new ApiError(
      'NOT_FOUND',
      asked ? `Message ${id} has no ${asked} payload` : `Message ${id} has no payload`,
    );
  }
  const store = runtimeOf(ctx).payloads;
  const parts = partsOf(stage);
  const inline = await findInlineStages(em, id, parts);
  const openPart = (s: StoredStage) =>
    inline.has(s)
      ? Promise.resolve(Readable.from([inline.get(s)!]))
      : store.open({ messageId: id, stage: s }).catch((error: unknown) => {
          // Recorded but gone from the store (removed behind pier's back): the stage is not there.
          if (error instanceof PayloadMissing) throw new ApiError('NOT_FOUND', error.message);
          throw error;
        });
  // Opened before answering, so a stage missing from the store is an error, not a cut stream.
  const first = await openPart(parts[0]!);
  const body =
    parts.length === 1
      ? first
      : await concatenate([async () => first, ...parts.slice(1).map((s) => () => openPart(s))]);
  return {
    stage,
    size: parts.reduce((n, s) => n + (sizes.get(s) ?? 0), 0),
    fileName: message.file_name,
    body,
  };
}

export async function servePayload(
  ctx: ApiContext,
  id: string,
  asked: PayloadStageName | undefined,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { stage, size, fileName, body } = await openPayload(ctx, id, asked);
  return reply
    .code(200)
    .header('content-type', 'application/octet-stream')
    .header('content-length', String(size))
    .header('content-disposition', contentDisposition(downloadName(id, fileName, stage)))
    .send(body);
}
