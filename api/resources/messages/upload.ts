/**
 * POST /messages: a file sent by hand (docs/api/messages.md). The file part is kept: up to 64 KiB in
 * memory and then inline with its record, a larger one streamed into the payload store (at
 * most 64 MiB, never held in memory whole); the form is checked; the message
 * is accepted and dispatched before the answer, which is the message as GET shows it.
 * A refused form leaves nothing behind; a store that fails is 503 STORAGE_UNAVAILABLE (through
 * the error handler), with no message recorded.
 */
import { envelopeOf } from '../../../actors/shared/edi-envelope.js';
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { checkHandUpload } from '../../../runtime/index.js';
import { isStorageFailure } from '../../../storage/payloads/storage-failure.js';
import { PayloadTooLarge, type PayloadStore } from '../../../storage/payloads/store.js';
import { keepStream, type KeptStage } from '../../../storage/payloads/inline.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, runtimeOf, type ApiContext } from '../../context.js';
import { ApiError, validationError } from '../../errors.js';
import { formFailure, partKey, putProblem, type FormProgress } from '../../http/multipart-form.js';
import { recordName } from '../../schemas/common.js';
import type { MessageRecord } from '../../schemas/message.js';
import { detailsFromZod } from '../../validation.js';
import { getMessage } from './service.js';
import type { AuditChange } from '../../../storage/entities/audit-event.js';
import { limits } from '../../../limits/limits.js';

/** Counts busboy enforces; more is a 400 naming the field (docs/api/conventions.md#errors keeps 413 for size). */
const formLimits = { fileField: 'file', files: 2, fields: 10, parts: 14 };

const UploadFields = z.strictObject({ from: recordName, to: recordName, target: recordName.optional() });

/**
 * The text fields of each upload, as read, so that the web UI's form can show them again after
 * a refusal (the body is a stream, read once, by this module). Kept by the underlying HTTP
 * request, which the web UI's call of this route shares (api/ui/call-api.ts wraps the request).
 */
const submitted = new WeakMap<object, Record<string, string>>();

/** The text fields the upload in `request` brought; none before it was read. */
export function submittedFields(request: FastifyRequest): Record<string, string> {
  return { ...submitted.get(request.raw) };
}

/** A file name from a form: its last path part, printable, at most 255 characters. */
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u001f\u007f]/g;

export function uploadedFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[/\\]/).pop()!.replace(controlCharacters, '_').trim();
  return (base === '' || base === '.' || base === '..' ? 'upload.bin' : base).slice(0, 255);
}

function isTooLarge(error: unknown): boolean {
  return (
    error instanceof PayloadTooLarge ||
    (typeof error === 'object' &&
      error !== null &&
      'code' in error &&
      error.code === 'FST_REQ_FILE_TOO_LARGE')
  );
}

const unnamedText = 'A part without a name; name it from, to, target or file';

/**
 * Removes what a refused upload may have stored. When the store itself failed it may not answer
 * the removal either (a hung endpoint takes a call's whole limit): the removal then goes on
 * without holding the answer, so the caller hears the store's failure at once. A removal that
 * fails is logged; the failure the caller hears stays the first one.
 */
export function discardStored(
  store: PayloadStore,
  id: string,
  cause: unknown,
  request: FastifyRequest,
): Promise<void> {
  const removal = store
    .removeMessage(id)
    .catch((error: unknown) =>
      request.log.warn({ err: error, message_id: id }, 'the stored file of a refused upload was not removed'),
    );
  return isStorageFailure(cause) ? Promise.resolve() : removal;
}

/**
 * The message a person sent (a file uploaded, or EDI as JSON), once accepted: read back as the
 * API answers it, and recorded in the audit log under who sent it.
 */
export async function sentByHand(
  ctx: ApiContext,
  caller: Caller,
  messageId: string,
  target: string | undefined,
  sizeBytes: number,
  more: AuditChange[] = [],
): Promise<MessageRecord> {
  const message = await getMessage(freshEm(ctx), messageId);
  await ctx.operatorActions.record(caller, {
    action: 'upload',
    kind: 'message',
    record_id: message.id,
    record_name: message.file_name,
    changes: [
      { field: 'from', new: message.from },
      { field: 'to', new: message.to },
      { field: 'target', new: target },
      { field: 'size_bytes', new: sizeBytes },
      ...more,
    ],
  });
  return message;
}

export async function acceptUpload(
  ctx: ApiContext,
  caller: Caller,
  request: FastifyRequest,
): Promise<MessageRecord> {
  const runtime = runtimeOf(ctx);
  const id = randomUUID();
  const fields: Record<string, string> = {};
  submitted.set(request.raw, fields);
  const problems: Record<string, string> = {};
  const progress: FormProgress = { problems };
  let file: { name: string; kept: KeptStage } | undefined;
  try {
    for await (const part of request.parts({ limits: { fileSize: limits.maxUploadBytes, ...formLimits } })) {
      const key = partKey(part.fieldname);
      if (part.type === 'field') {
        progress.lastField = key;
        if (key === part.fieldname && (UploadFields.shape as Record<string, unknown>)[key] !== undefined) {
          // A form's blank target is no target: the routes name it (docs/api/messages.md).
          if (key === 'target' && String(part.value) === '') continue;
          fields[key] = String(part.value);
        } else putProblem(problems, key, key === part.fieldname ? 'Unknown property' : unnamedText);
        continue;
      }
      if (key !== 'file' || file) {
        part.file.resume();
        putProblem(
          problems,
          key,
          key === 'file' ? 'Send one file' : key === part.fieldname ? 'Unknown property' : unnamedText,
        );
        continue;
      }
      const kept = await keepStream(runtime.payloads, { messageId: id, stage: 'unpacked' }, part.file, {
        maxBytes: limits.maxUploadBytes,
      });
      if (part.file.truncated) throw new PayloadTooLarge(limits.maxUploadBytes);
      file = { name: uploadedFileName(part.filename), kept };
    }
  } catch (error) {
    await discardStored(runtime.payloads, id, error, request);
    if (isTooLarge(error))
      throw new ApiError('PAYLOAD_TOO_LARGE', 'The file is larger than the limit of 64 MiB');
    throw formFailure(error, formLimits, progress) ?? error;
  }
  let accepted = false;
  try {
    const parsed = UploadFields.safeParse(fields);
    if (!parsed.success) Object.assign(problems, detailsFromZod(parsed.error));
    if (!file) problems.file ??= 'Required';
    const checked =
      parsed.success && Object.keys(problems).length === 0
        ? await checkHandUpload(ctx.orm, parsed.data)
        : undefined;
    if (checked) Object.assign(problems, checked.problems);
    const target = checked?.target;
    if (Object.keys(problems).length > 0 || !parsed.success || !file || target === undefined) {
      throw validationError(problems);
    }
    // The envelope goes with it (filters, the partner's acknowledgement awaited); the parties
    // stay the ones the form names.
    const edi = await envelopeOf({
      content: file.kept.content,
      open: () => runtime.payloads.open({ messageId: id, stage: 'unpacked' }),
    });
    const outcome = await runtime.dispatcher.acceptAndDispatch({
      source_type: 'api',
      source_name: 'api',
      message: {
        id,
        from: parsed.data.from,
        to: parsed.data.to,
        file_name: file.name,
        payload: { stage: 'unpacked', ...file.kept },
        ...(edi ? { edi } : {}),
      },
      target_hint: target,
      text: `Sent by hand by ${caller.actor}`,
    });
    accepted = true;
    request.log.info({ user: caller.actor, message_id: outcome.message_id }, 'message sent by hand');
    return await sentByHand(ctx, caller, outcome.message_id, target, file.kept.size_bytes);
  } catch (error) {
    // Refused before acceptance: the stored file goes too. After it, the message owns it.
    if (!accepted) await discardStored(runtime.payloads, id, error, request);
    throw error;
  }
}
