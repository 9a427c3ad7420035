/**
 * POST /messages/edi, EDI as JSON (docs/edi-json.md#json-to-edi-sending): an interchange in its JSON form,
 * sent as given, or documents without envelopes that pier puts in envelopes from the parties'
 * interchange ids, taking the partner's control numbers. Either way the bytes pass pier's own
 * syntax check first; a refusal names the segment and element and stores nothing.
 *
 * Built documents take their control numbers inside the acceptance's transaction (the
 * dispatcher's acceptNumbered): the bytes are written and stored with the numbers while the
 * counters are locked, and the counters commit with the message or not at all, so a failed
 * acceptance takes no number (docs/decisions/edi-control-numbers-per-partner-in-one-row-update.md).
 *
 * The body is never held whole: it arrives in a spool file (json-spool.ts), is checked in one
 * streaming pass and written as EDI from the spool in another (send-json-body.ts), so memory
 * stays flat in its size (docs/decisions/edi-json-sends-stream-from-a-spool-file.md).
 */
import type { FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { envelopeOf } from '../../../actors/shared/edi-envelope.js';
import {
  buildInterchange,
  numbersNeeded,
  type BuildNumbers,
  type BuildSettings,
} from '../../../edi/json/build.js';
import { EdiJsonError, type SegmentJson } from '../../../edi/json/form.js';
import { checkEdi } from '../../../edi/json/gate.js';
import { checkHandUpload, type AcceptItem } from '../../../runtime/index.js';
import { OrganizationSchema, PartnerSchema } from '../../../storage/entities/party.js';
import { keepStream, openKept, type KeptStage } from '../../../storage/payloads/inline.js';
import { PayloadTooLarge } from '../../../storage/payloads/store.js';
import type { ControlBlock } from '../../../storage/repositories/control-numbers.js';
import { maxControl, ControlNumbersExhausted } from '../../../storage/repositories/control-numbers.js';
import type { Caller } from '../../auth/caller.js';
import { freshEm, runtimeOf, type ApiContext } from '../../context.js';
import { ApiError, validationError } from '../../errors.js';
import { envelopeSettingsOf } from '../../schemas/edi-envelope.js';
import type { MessageRecord } from '../../schemas/message.js';
import { fieldProblems, putDetail, requireObjectBody } from '../../validation.js';
import { envelopeFor } from './envelope-settings.js';
import { BodySpool, spoolBody, spoolDirectory } from './json-spool.js';
import { documentsEdi, interchangeEdi, readSend, SendSkeleton } from './send-json-body.js';
import { discardStored, sentByHand } from './upload.js';
import { limits } from '../../../limits/limits.js';

type Send = ReturnType<typeof SendSkeleton.parse>;

/** Reads the body of POST /messages/edi into a spool file (the route's own parser, api/http/router.ts). */
export const sendJsonBody = (ctx: ApiContext) => ({
  parse: (request: FastifyRequest, payload: Readable) =>
    spoolBody(
      payload,
      spoolDirectory(ctx.options.dataDir),
      request.routeOptions.bodyLimit,
      request.headers['content-length'],
    ),
  done: async (body: unknown) => {
    if (body instanceof BodySpool) await body.remove();
  },
});

const refused = (field: string, error: EdiJsonError) =>
  new ApiError('INVALID_INPUT', 'Validation failed', { [field]: error.message, ...error.where });

/** What a build of documents needs, read and checked before any number is taken. */
interface Build {
  partnerId: number;
  settings: BuildSettings;
  /** The sets as the body gives them, each with an empty list as long as its segments. */
  sets: { type: string | string[]; functional_id?: string | undefined; segments: SegmentJson[] }[];
  spool: BodySpool;
}

/**
 * The interchange's EDI with these numbers, streamed from the spool: the envelope is built with
 * the sets' segments counted, and each of its sets is found again in the body by its list.
 */
function builtEdi(build: Build, numbers: BuildNumbers): AsyncGenerator<Buffer> {
  const envelope = buildInterchange(build.settings, build.sets, numbers);
  const index = new Map(build.sets.map((s, i) => [s.segments, i]));
  const order = (
    envelope.groups?.flatMap((g) => g.transactions ?? g.messages ?? []) ??
    envelope.messages ??
    []
  ).map((s) => index.get(s.segments)!);
  return documentsEdi(build.spool, envelope, order);
}

/**
 * The syntax check of EDI written as it streams; a failure of the writing itself (a separator in
 * data, an envelope segment among a set's) is the one told, as documentToEdi threw it first.
 */
async function checkedStream(edi: AsyncGenerator<Buffer>): Promise<void> {
  let failure: unknown;
  const guarded = (async function* () {
    try {
      yield* edi;
    } catch (error) {
      failure = error;
    }
  })();
  try {
    await checkEdi(Readable.from(guarded));
  } catch (error) {
    throw failure ?? error;
  }
  if (failure !== undefined) throw failure;
}

async function prepareBuild(
  ctx: ApiContext,
  send: Send,
  segments: number[],
  spool: BodySpool,
): Promise<Build> {
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
    ...envelopeFor(documents, envelopeSettingsOf(partner.edi_envelope)),
    line_break: documents.line_break,
    sender,
    receiver,
    at: new Date(),
  };
  // Each its own list: the built envelope's sets are matched to the body's by it.
  const sets = documents.sets.map((s, i) => ({ ...s, segments: new Array<SegmentJson>(segments[i] ?? 0) }));
  const build = { partnerId: partner.id, settings, sets, spool };
  try {
    // Checked with stand-in numbers first: a refused build takes no number.
    await checkedStream(builtEdi(build, { interchange: 1, group: 1, set: 1 }));
  } catch (error) {
    if (error instanceof EdiJsonError) throw refused('documents', error);
    throw error;
  }
  return build;
}

/** The numbers a block gives, and how the audit log shows them (`interchange 7, group 7, sets 12–13`). */
function numbersOf(block: ControlBlock, build: Build): { numbers: BuildNumbers; text: string } {
  const numbers = { interchange: block.interchange!, group: block.group ?? 0, set: block.set! };
  const sets = build.sets.length;
  const groups = numbersNeeded(build.settings, build.sets).group;
  const range = (first: number, n: number) => (n === 1 ? `${first}` : `${first}–${first + n - 1}`);
  const text = [
    `interchange ${numbers.interchange}`,
    ...(groups > 0 ? [`group${groups > 1 ? 's' : ''} ${range(numbers.group, groups)}`] : []),
    `set${sets > 1 ? 's' : ''} ${range(numbers.set, sets)}`,
  ].join(', ');
  return { numbers, text };
}

/**
 * Stores EDI as it is written as the message's first stage, checks it as stored (read back from
 * the store, never held whole) and reads the envelope that names the file.
 */
async function stored(
  ctx: ApiContext,
  id: string,
  edi: AsyncGenerator<Buffer>,
): Promise<{ kept: KeptStage; edi: Awaited<ReturnType<typeof envelopeOf>> }> {
  const { payloads } = runtimeOf(ctx);
  const ref = { messageId: id, stage: 'unpacked' } as const;
  let kept: KeptStage;
  try {
    kept = await keepStream(payloads, ref, Readable.from(edi), { maxBytes: limits.maxUploadBytes });
  } catch (error) {
    if (error instanceof PayloadTooLarge)
      throw new ApiError('PAYLOAD_TOO_LARGE', 'The interchange is larger than the limit of 64 MiB');
    throw error;
  }
  await checkEdi(await openKept(payloads, ref, kept.content));
  const envelope = await envelopeOf({ content: kept.content, open: () => payloads.open(ref) });
  return { kept, edi: envelope };
}

type Checked = { target: string; send: Send };

function itemOf(
  checked: Checked,
  caller: Caller,
  id: string,
  kept: KeptStage,
  edi: Awaited<ReturnType<typeof envelopeOf>>,
  text: string,
): AcceptItem {
  const { send } = checked;
  return {
    source_type: 'api',
    source_name: 'api',
    message: {
      id,
      from: send.from,
      to: send.to,
      file_name: send.file_name ?? `${edi?.interchange_control ?? id}.edi`,
      payload: { stage: 'unpacked', ...kept },
      ...(edi ? { edi } : {}),
    },
    target_hint: checked.target,
    text,
  };
}

/** Builds, stores and accepts documents with the control numbers taken in the acceptance's transaction. */
async function sendBuilt(
  ctx: ApiContext,
  caller: Caller,
  request: FastifyRequest,
  checked: Checked,
  id: string,
  spool: BodySpool,
  segments: number[],
): Promise<MessageRecord> {
  const build = await prepareBuild(ctx, checked.send, segments, spool);
  const runtime = runtimeOf(ctx);
  let size = 0;
  let numbersText = '';
  let storedSome = false;
  let outcome;
  try {
    outcome = await runtime.dispatcher.acceptNumbered(
      {
        partnerId: build.partnerId,
        counts: numbersNeeded(build.settings, build.sets),
        max: maxControl[build.settings.standard],
      },
      async (block) => {
        const { numbers, text } = numbersOf(block, build);
        numbersText = text;
        storedSome = true;
        const { kept, edi } = await stored(ctx, id, builtEdi(build, numbers));
        size = kept.size_bytes;
        return itemOf(
          checked,
          caller,
          id,
          kept,
          edi,
          `Sent as EDI JSON by ${caller.actor}; control numbers ${text}`,
        );
      },
    );
  } catch (error) {
    // Rolled back with the acceptance: what the build stored goes too.
    if (storedSome) await discardStored(runtime.payloads, id, error, request);
    if (error instanceof ControlNumbersExhausted)
      throw new ApiError('CONFLICT', error.message, { level: error.level });
    if (error instanceof EdiJsonError) throw refused('documents', error);
    throw error;
  }
  // Accepted: from here on the message owns what was stored.
  return sentByHand(ctx, caller, outcome.message_id, checked.target, size, [
    { field: 'control_numbers', new: numbersText },
  ]);
}

export async function acceptJsonMessage(
  ctx: ApiContext,
  caller: Caller,
  request: FastifyRequest,
): Promise<MessageRecord> {
  const spool = request.body;
  if (!(spool instanceof BodySpool)) return requireObjectBody(undefined) as never;
  try {
    return await acceptSpooled(ctx, caller, request, spool);
  } finally {
    await spool.remove();
  }
}

async function acceptSpooled(
  ctx: ApiContext,
  caller: Caller,
  request: FastifyRequest,
  spool: BodySpool,
): Promise<MessageRecord> {
  const read = await readSend(spool);
  const { problems, complete } = fieldProblems(SendSkeleton, requireObjectBody(read.body));
  for (const [key, text] of Object.entries(read.problems)) putDetail(problems, key, text);
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
  const target = { target: checked.target, send: complete };
  if (complete.documents) return sendBuilt(ctx, caller, request, target, id, spool, read.segments);
  const runtime = runtimeOf(ctx);
  let accepted = false;
  try {
    const { kept, edi } = await stored(ctx, id, interchangeEdi(spool));
    const outcome = await runtime.dispatcher.acceptAndDispatch(
      itemOf(target, caller, id, kept, edi, `Sent as EDI JSON by ${caller.actor}`),
    );
    accepted = true;
    return await sentByHand(ctx, caller, outcome.message_id, checked.target, kept.size_bytes);
  } catch (error) {
    // Refused or failed before acceptance: what was stored goes too. After it, the message owns it.
    if (!accepted) await discardStored(runtime.payloads, id, error, request);
    if (error instanceof EdiJsonError) throw refused('interchange', error);
    throw error;
  }
}
