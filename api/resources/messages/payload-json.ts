/**
 * GET /messages/{id}/payload as JSON (Accept: application/json or format=json): the stage's
 * interchange in pier's EDI JSON form (docs/edi-json.md). The answer's status must be known
 * before its first byte, so a payload is translated once before answering: a small one into
 * memory, a large one through a pass that only reads (memory stays flat) and is then streamed.
 * A payload that is not an interchange pier can translate is 406 NOT_ACCEPTABLE, saying why.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { annotate } from '../../../edi/json/annotate.js';
import { EdiJsonError } from '../../../edi/json/form.js';
import { ediToJson } from '../../../edi/json/translate.js';
import type { ApiContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import type { PayloadStageName } from '../../schemas/message.js';
import { openPayload } from './payload.js';
import { limits } from '../../../limits/limits.js';

/** Whether the request asks for the JSON form. */
export function wantsJson(request: FastifyRequest, format: 'raw' | 'json' | undefined): boolean {
  if (format !== undefined) return format === 'json';
  const accept = request.headers.accept ?? '';
  return /(^|,)\s*application\/json\s*(;|,|$)/i.test(accept);
}

async function translated(body: Readable, fail: (error: EdiJsonError) => ApiError): Promise<Buffer[]> {
  const out: Buffer[] = [];
  try {
    for await (const bytes of ediToJson(body, annotate)) out.push(bytes);
    return out;
  } catch (error) {
    if (error instanceof EdiJsonError) throw fail(error);
    throw error;
  } finally {
    body.destroy();
  }
}

async function checkedOnly(body: Readable, fail: (error: EdiJsonError) => ApiError): Promise<void> {
  try {
    // The output is dropped: this pass only finds out whether the translation succeeds.
    for await (const bytes of ediToJson(body, null)) void bytes;
  } catch (error) {
    if (error instanceof EdiJsonError) throw fail(error);
    throw error;
  } finally {
    body.destroy();
  }
}

export async function servePayloadJson(
  ctx: ApiContext,
  id: string,
  asked: PayloadStageName | undefined,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const opened = await openPayload(ctx, id, asked);
  const fail = (error: EdiJsonError) =>
    new ApiError(
      'NOT_ACCEPTABLE',
      `The ${opened.stage} payload of message ${id} cannot be given as JSON: ${error.message}`,
      { stage: opened.stage, ...error.where },
    );
  if (opened.size <= limits.jsonInMemoryMaxBytes) {
    const json = Buffer.concat(await translated(opened.body, fail));
    return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(json);
  }
  await checkedOnly(opened.body, fail);
  const again = await openPayload(ctx, id, opened.stage);
  const stream = Readable.from(ediToJson(again.body, annotate));
  return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(stream);
}
