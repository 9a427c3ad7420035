/**
 * POST /messages with a JSON body (docs/edi-json.md#sending): an interchange in its JSON form,
 * sent as given, or documents without envelopes that pier puts in envelopes from the parties'
 * interchange ids, taking the partner's control numbers. Either way the bytes pass pier's own
 * syntax check first; a refusal names the segment and element and stores nothing.
 *
 * The control numbers are taken, with an audit event naming the message they are for, in one
 * transaction before the message is accepted: if the acceptance then fails, the audit log says
 * which numbers were taken for which message that never came (docs/decisions).
 */
import type { FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { envelopeOf } from '../../../actors/shared/edi-envelope.js';
import { buildInterchange, numbersNeeded, type BuildSettings } from '../../../protocol/edi/json/build.js';
import { EdiJsonError, type EdiJson, type SegmentJson } from '../../../protocol/edi/json/form.js';
import { checkedBytes } from '../../../protocol/edi/json/gate.js';
import { checkHandUpload } from '../../../runtime/index.js';
import { OrganizationSchema, PartnerSchema } from '../../../storage/entities/party.js';
import { keepStream } from '../../../storage/payloads/inline.js';
import {
  maxControl,
  takeControlNumbersIn,
  ControlNumbersExhausted,
} from '../../../storage/repositories/control-numbers.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, inTransaction, runtimeOf, type ApiContext } from '../../context.js';
import { ApiError, validationError } from '../../errors.js';
import { EdiJsonSend } from '../../schemas/edi-json.js';
import type { MessageRecord } from '../../schemas/message.js';
import { fieldProblems, requireObjectBody } from '../../validation.js';
import { maxUploadBytes, sentByHand } from './upload.js';

type Send = ReturnType<typeof EdiJsonSend.parse>;

const refused = (field: string, error: EdiJsonError) =>
  new ApiError('INVALID_INPUT', 'Validation failed', { [field]: error.message, ...error.where });

async function builtDocuments(ctx: ApiContext, caller: Caller, send: Send, id: string): Promise<Buffer> {
  const documents = send.documents!;
  const em = freshEm(ctx);
  const organization = await em.findOne(OrganizationSchema, { name: send.from });
  const partner = await em.findOne(PartnerSchema, { name: send.to });
  if (!organization || !partner)
    throw validationError({ to: 'Documents are built from an organization (from) to a partner (to)' });
  const [sender] = organization.interchange_ids;
  const [receiver] = partner.interchange_ids;
  if (!sender) throw validationError({ from: `${send.from} has no interchange id to put in the envelope` });
  if (!receiver) throw validationError({ to: `${send.to} has no interchange id to put in the envelope` });
  const settings: BuildSettings = {
    standard: documents.standard,
    version: documents.version,
    test: documents.test,
    acknowledgement_requested: documents.acknowledgement_requested,
    delimiters: documents.delimiters,
    line_break: documents.line_break,
    sender,
    receiver,
    at: new Date(),
  };
  const sets = documents.sets.map((s) => ({ ...s, segments: s.segments as SegmentJson[] }));
  try {
    // Checked with stand-in numbers first: a refused build takes no number.
    await checkedBytes(buildInterchange(settings, sets, { interchange: 1, group: 1, set: 1 }));
  } catch (error) {
    if (error instanceof EdiJsonError) throw refused('documents', error);
    throw error;
  }
  const max = maxControl[documents.standard];
  const numbers = await inTransaction(ctx, async (tx) => {
    try {
      const block = await takeControlNumbersIn(
        tx,
        partner.id,
        'outbound',
        numbersNeeded(settings, sets),
        max,
      );
      const taken = { interchange: block.interchange!, group: block.group ?? 0, set: block.set! };
      await ctx.audit.record(tx, {
        actor: caller.actor,
        action: 'create',
        kind: 'control_number',
        record_id: partner.id,
        record_name: `${partner.name} outbound`,
        changes: [
          { field: 'message_id', new: id },
          { field: 'interchange', new: taken.interchange },
          ...(block.group ? [{ field: 'group', new: taken.group }] : []),
          { field: 'set', new: taken.set },
        ],
      });
      return taken;
    } catch (error) {
      if (error instanceof ControlNumbersExhausted)
        throw new ApiError('CONFLICT', error.message, { level: error.level });
      throw error;
    }
  });
  return checkedBytes(buildInterchange(settings, sets, numbers));
}

export async function acceptJsonMessage(
  ctx: ApiContext,
  caller: Caller,
  request: FastifyRequest,
): Promise<MessageRecord> {
  const { problems, complete } = fieldProblems(EdiJsonSend, requireObjectBody(request.body));
  if (!complete || Object.keys(problems).length > 0) throw validationError(problems);
  if ((complete.interchange === undefined) === (complete.documents === undefined))
    throw validationError({
      _form: 'Give interchange (a whole interchange) or documents (without envelopes), one of them',
    });
  const checked = await checkHandUpload(ctx.orm, {
    from: complete.from,
    to: complete.to,
    target: complete.target,
  });
  if (Object.keys(checked.problems).length > 0 || checked.target === undefined)
    throw validationError(checked.problems);
  const id = randomUUID();
  let bytes: Buffer;
  if (complete.interchange) {
    try {
      bytes = await checkedBytes(complete.interchange as EdiJson);
    } catch (error) {
      if (error instanceof EdiJsonError) throw refused('interchange', error);
      throw error;
    }
  } else bytes = await builtDocuments(ctx, caller, complete, id);
  if (bytes.length > maxUploadBytes)
    throw new ApiError('PAYLOAD_TOO_LARGE', 'The interchange is larger than the limit of 64 MiB');
  const runtime = runtimeOf(ctx);
  const kept = await keepStream(
    runtime.payloads,
    { messageId: id, stage: 'unpacked' },
    Readable.from([bytes]),
    {
      maxBytes: maxUploadBytes,
    },
  );
  const edi = await envelopeOf({
    content: kept.content,
    open: () => runtime.payloads.open({ messageId: id, stage: 'unpacked' }),
  });
  const fileName = complete.file_name ?? `${edi?.interchange_control ?? id}.edi`;
  const outcome = await runtime.dispatcher.acceptAndDispatch({
    source_type: 'api',
    source_name: 'api',
    message: {
      id,
      from: complete.from,
      to: complete.to,
      file_name: fileName,
      payload: { stage: 'unpacked', ...kept },
      ...(edi ? { edi } : {}),
    },
    target_hint: checked.target,
    text: `Sent as EDI JSON by ${caller.actor}`,
  });
  return sentByHand(ctx, caller, outcome.message_id, checked.target, kept.size_bytes);
}
