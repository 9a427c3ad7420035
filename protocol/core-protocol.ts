/**
 * What an actor asks the core (the main thread) and tells it, and the shapes of the flow's
 * messages and deliveries that targets and sources record on their own connections
 * (flow/actor-commands.ts). A message names its payload stage:
 * a large one the actor has already written to the store; a small one travels here, to be
 * kept in the row that records it (storage/payloads/inline.ts).
 */
import { z } from 'zod';
import { InlineContent } from './payload-wire.js';
import { As2Record, As2Request, type As2Response } from './as2-protocol.js';
import {
  NotifyClaimRequest,
  NotifyProgressRequest,
  NotifyResultRequest,
  type NotifyResponse,
} from './notify-protocol.js';
import { MetricsBatch } from './metrics/batch.js';
import { EdiRecord } from '../edi/record.js';

/** Text PostgreSQL can store: no NUL characters. */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !s.includes('\u0000'), 'Must not contain NUL characters');
const partyText = text(255);

export const PayloadStage = z.enum(['unpacked', 'received', 'headers', 'receipt']);
export type PayloadStage = z.infer<typeof PayloadStage>;

/** A message a source brought in; its payload is already in the store under `id`. */
export const OfferedMessage = z.object({
  id: z.uuid(),
  from: partyText,
  to: partyText,
  file_name: text(1024).refine((s) => s !== '', 'Must not be empty'),
  /** Identifies what the source took (a file), so offering it again gives the same message. */
  source_key: text(2048).optional(),
  payload: z.object({
    stage: PayloadStage,
    size_bytes: z.number().int().min(0),
    content: InlineContent.optional(),
  }),
  /** Set when the source refuses the message (it cannot be read or routed): why. */
  refusal: text(2048).optional(),
  /** What AS2 did to a received message, stored with it. */
  as2_record: As2Record.optional(),
  /**
   * Set for a message pier handles itself (a certificate exchange message): it goes to no
   * target, whatever the routes say (status NotRouted), and this says why in its history.
   */
  unrouted: text(2048).optional(),
  /** The EDI envelope of the payload, when it is an X12 or EDIFACT interchange. */
  edi: EdiRecord.optional(),
  /**
   * Targets the source handed the document to already (protocol/handoff-protocol.ts), each with
   * its delivery's history text: a route to one of them is stored as delivered, not queued.
   */
  handed: z
    .array(z.object({ target: z.string().max(255), detail: text(2048) }))
    .max(16)
    .optional(),
});
export type OfferedMessage = z.infer<typeof OfferedMessage>;

export const Acceptance = z.object({
  message_id: z.uuid(),
  /** True when the source had offered this before: `message_id` is the earlier message. */
  duplicate: z.boolean(),
  /** An AS2 duplicate: whether the earlier message's receipt is stored (to answer with). */
  receipt_stored: z.boolean().optional(),
  /** That receipt's bytes when it is kept inline (else the actor reads it from the store). */
  receipt: InlineContent.optional(),
  status: z.string(),
  /**
   * Deliveries queued at the message's targets in the last few seconds and not claimed yet:
   * a source that is far ahead of its targets holds back.
   */
  queued: z.number().int(),
  /** The handed targets whose deliveries were stored as delivered: their files may now be named. */
  handed: z.array(z.object({ target: z.string(), delivery_id: z.number().int() })).optional(),
});
export type Acceptance = z.infer<typeof Acceptance>;

export const ClaimedDelivery = z.object({
  delivery_id: z.number().int(),
  /** The claim's number: a result is recorded only for the claim that is current. */
  claim: z.number().int(),
  attempt: z.number().int(),
  message: z.object({
    id: z.uuid(),
    from: z.string(),
    to: z.string(),
    file_name: z.string(),
    direction: z.enum(['inbound', 'outbound']),
  }),
  /** `content`: the bytes of a small stage, kept in its payload row; else read from the store. */
  payload: z.object({ stage: PayloadStage, size_bytes: z.number().int(), content: InlineContent.optional() }),
});
export type ClaimedDelivery = z.infer<typeof ClaimedDelivery>;

export const DeliveryOutcome = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    detail: z.string().max(2048).optional(),
    /** Sent, and the partner's receipt is still to come (AS2 asynchronous MDN). */
    awaiting_ack: z.boolean().optional(),
    /** What AS2 did on the way, stored with the result. */
    as2_record: As2Record.optional(),
  }),
  z.object({
    ok: z.literal(false),
    /** False for a failure that trying again cannot fix (a 4xx answer, a refused file). */
    retryable: z.boolean(),
    error: z.string().max(2048),
    as2_record: As2Record.optional(),
  }),
]);
export type DeliveryOutcome = z.infer<typeof DeliveryOutcome>;

export const DeliveryResult = z.object({
  delivery_id: z.number().int(),
  claim: z.number().int(),
  outcome: DeliveryOutcome,
});
export type DeliveryResult = z.infer<typeof DeliveryResult>;

export const CoreRequest = z.discriminatedUnion('type', [
  // The AS2 actors' questions, then the notifiers'.
  ...As2Request.options,
  NotifyClaimRequest,
  NotifyResultRequest,
  NotifyProgressRequest,
]);
export type CoreRequest = z.infer<typeof CoreRequest>;
export type CoreResponse = As2Response | NotifyResponse;

/** Events an actor sends without waiting: log lines, kept out of the worker's stdout. */
export const ActorEvent = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('log'),
    level: z.enum(['debug', 'info', 'warn', 'error']),
    msg: z.string().max(4096),
    fields: z.record(z.string(), z.unknown()).optional(),
  }),
  /**
   * The payload store stopped taking stages (`ok` false, with the store's words) or takes them
   * again: sent when that changes, not per stage, so the core raises one alert and its end.
   */
  z.object({ type: z.literal('storage'), ok: z.boolean(), problem: z.string().max(2048).optional() }),
  /**
   * A target's partner failed an attempt the way an unreachable partner does (`ok` false, with
   * the error), or took one after failing or for the first time since the actor started: the core
   * raises `partner_unreachable` and its end (runtime/alerts/partner-alerts.ts).
   */
  z.object({
    type: z.literal('reach'),
    ok: z.boolean(),
    /** The partner the attempt went to, when the target sends to many (an AS2 sender): its name. */
    partner: z.string().max(256).optional(),
    error: z.string().max(2048).optional(),
  }),
  /**
   * An SFTP server presented a host key other than the pinned one, and the connection was
   * refused: the core raises `host_key_changed` (runtime/alerts/host-key-alerts.ts).
   */
  z.object({
    type: z.literal('host_key'),
    /** `host port N`, as the operator configured it. */
    server: z.string().max(300),
    presented: z.string().max(64),
    pinned: z.string().max(64),
  }),
  /**
   * A statement of the actor's own found the database away (`ok` false, with what it was doing
   * and the driver's words) or answering again: the process tells an outage once, whoever saw it.
   */
  z.object({
    type: z.literal('database'),
    ok: z.boolean(),
    what: z.string().max(256),
    error: z.string().max(2048).optional(),
  }),
  /** What the actor counted since its last batch (protocol/metrics/tally.ts), about once a second. */
  z.object({ type: z.literal('metrics'), batch: MetricsBatch }),
]);
export type ActorEvent = z.infer<typeof ActorEvent>;

/**
 * The inline payload bytes (base64 characters) a message or a result carries, so batches of
 * them can be kept to a size (a burst of 64 KiB messages would otherwise make one statement
 * of a hundred megabytes).
 */
export function inlineChars(carrier: {
  payload?: { content?: string | undefined };
  as2_record?: { stages: { content?: string | undefined }[] } | undefined;
}): number {
  let chars = carrier.payload?.content?.length ?? 0;
  for (const stage of carrier.as2_record?.stages ?? []) chars += stage.content?.length ?? 0;
  return chars;
}
