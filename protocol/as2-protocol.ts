/**
 * What the AS2 actors ask the core beyond accept/claim/result: the profiles and keys of the
 * parties of a message, recording what AS2 did to a message, duplicate lookups and the
 * receipts of messages pier sent. Keys cross as PKCS#8 PEM inside the process (worker
 * threads share no KeyObjects with zod-checked envelopes); they are never logged.
 */
import { z } from 'zod';
import { interopChoices } from './as2/interop-presets.js';
import { InlineContent } from './payload-wire.js';
import { CemReceivedAnswer, CemReceivedRequest } from './cem-protocol.js';

export const As2Material = z.object({
  certificate_pem: z.string(),
  /** PKCS#8 PEM; only for our own certificates. */
  private_key_pem: z.string().optional(),
});
export type As2Material = z.infer<typeof As2Material>;

/** The receiver: who are AS2-To (an organization) and AS2-From (a partner)? */
export const As2InboundRequest = z.object({
  type: z.literal('as2_inbound'),
  as2_to: z.string().max(1024),
  as2_from: z.string().max(1024),
});

const InboundFound = z.object({
  found: z.literal(true),
  organization: z.string(),
  partner: z.string(),
  /** Our certificates with keys the partner may encrypt to. */
  decryption: z.array(As2Material),
  /** Our signing certificate with its key, for signed receipts. */
  signing: As2Material.nullable(),
  /** The partner's current signature certificates. */
  verification: z.array(z.string()),
  /**
   * The partner's encryption and signature certificates: a 1-pass ECMQV message may name its
   * originator's static key by one of them instead of carrying it.
   */
  partner_certificates: z.array(z.string()),
  require_signed: z.boolean(),
  require_encrypted: z.boolean(),
  /** Refuse SHA-1/MD5 signatures and 3DES/RC2 encryption from the partner. */
  require_modern: z.boolean(),
  /** The AS2 modernisation draft: receipts are never signed with SHA-1 or MD5. */
  as2bis: z.boolean(),
  /** The partner's own message size limit; null: the receiver's. */
  max_message_bytes: z.number().int().nullable(),
});
export const As2InboundResponse = z.object({
  type: z.literal('as2_inbound'),
  context: z.discriminatedUnion('found', [
    InboundFound,
    z.object({
      found: z.literal(false),
      problem: z.string(),
      /** Known when only the partner is unknown: lets the refusal receipt be signed. */
      signing: As2Material.nullable(),
    }),
  ]),
});
export type As2InboundResponse = z.infer<typeof As2InboundResponse>;
export type As2InboundContext = As2InboundResponse['context'];

/** The library's InteropOptions: what the sender puts on the wire for one partner (docs/interop.md). */
const As2InteropOptions = z.object({
  signedAttributes: z.boolean(),
  algorithmProtection: z.boolean(),
  transferEncoding: z.enum(interopChoices.transferEncoding),
  micSpelling: z.enum(interopChoices.micSpelling),
  keyTransport: z.enum(interopChoices.keyTransport),
  keyAgreement: z.enum(interopChoices.keyAgreement),
  bodyFraming: z.enum(interopChoices.bodyFraming),
  filenameQuoting: z.enum(interopChoices.filenameQuoting),
});

/** The sender: everything needed to send a message from an organization to a partner. */
export const As2OutboundRequest = z.object({
  type: z.literal('as2_outbound'),
  organization: z.string(),
  partner: z.string(),
});
const OutboundFound = z.object({
  found: z.literal(true),
  organization_as2id: z.string(),
  partner_as2id: z.string(),
  partner_id: z.number().int(),
  endpoint: z.string(),
  signing_algorithm: z.string(),
  encryption_algorithm: z.string(),
  compression: z.boolean(),
  mdn_mode: z.enum(['sync', 'async', 'none']),
  mdn_signed: z.boolean(),
  receipt_timeout_hours: z.number().int(),
  async_mdn_url: z.string(),
  signing: As2Material.nullable(),
  encryption: z.string().nullable(),
  verification: z.array(z.string()),
  /**
   * The organization's certificates with keys that may be its static key for 1-pass ECMQV
   * (decryption certificates, then the signing certificate); empty unless the partner's
   * profile asks for ECMQV. The sender takes the first on the encryption certificate's curve.
   */
  ecmqv_keys: z.array(As2Material),
  tls_verify: z.boolean(),
  tls_trusted: z.array(z.string()),
  tls_client: As2Material.nullable(),
  http_basic_user: z.string(),
  http_basic_password: z.string(),
  http_headers: z.array(z.object({ name: z.string(), value: z.string() })),
  interop: As2InteropOptions,
  /** draft-ietf-ediint-rfc4130bis: generate no SHA-1, MD5, 3DES or RC2 for this partner. */
  as2bis: z.boolean(),
});
export const As2OutboundResponse = z.object({
  type: z.literal('as2_outbound'),
  context: z.discriminatedUnion('found', [
    OutboundFound,
    z.object({ found: z.literal(false), problem: z.string() }),
  ]),
});
export type As2OutboundResponse = z.infer<typeof As2OutboundResponse>;
export type As2OutboundContext = z.infer<typeof OutboundFound>;

const stage = z.enum(['unpacked', 'received', 'headers', 'receipt']);

/**
 * What AS2 did to a message (shown as protocols.as2) and the stages stored besides the
 * accepted one. Travels with the acceptance of a received message and with the result of a
 * delivery, so it is written in the same transaction; asked on its own only before an
 * asynchronous receipt is awaited.
 */
export const As2Record = z.object({
  direction: z.enum(['inbound', 'outbound']),
  as2_message_id: z.string().max(1024),
  as2_from: z.string().max(1024),
  as2_to: z.string().max(1024),
  /** Inbound: processed successfully (counts for duplicates). Outbound: null until the receipt. */
  processed: z.boolean().nullable(),
  /**
   * Outbound asynchronous receipts: the delivery waiting, hours until it fails, and minutes
   * until a receipt still missing raises receipts_missing for the partner (0: at the timeout).
   */
  awaiting: z
    .object({
      delivery_id: z.number().int(),
      hours: z.number().int(),
      alert_minutes: z.number().int().min(0).default(0),
    })
    .optional(),
  info: z.record(z.string(), z.unknown()),
  /** `content`: a small stage's bytes, kept in its payload row (storage/payloads/inline.ts). */
  stages: z.array(
    z.object({ stage, size_bytes: z.number().int().min(0), content: InlineContent.optional() }),
  ),
  /** A history line to add (a synchronous receipt: mdn_received or mdn_refused). */
  history: z.object({ kind: z.enum(['mdn_received', 'mdn_refused']), text: z.string().max(2048) }).optional(),
});
export type As2Record = z.infer<typeof As2Record>;

export const As2RecordRequest = As2Record.extend({ type: z.literal('as2_record'), message_id: z.uuid() });
export type As2RecordRequest = z.infer<typeof As2RecordRequest>;

/** An asynchronous receipt arrived: the message pier sent with that Message-ID. */
export const As2SentRequest = z.object({
  type: z.literal('as2_sent'),
  original_message_id: z.string().max(1024),
});
export const As2SentResponse = z.object({
  type: z.literal('as2_sent'),
  sent: z
    .object({
      message_id: z.uuid(),
      partner_as2id: z.string(),
      verification: z.array(z.string()),
      info: z.record(z.string(), z.unknown()),
      awaiting_delivery_id: z.number().int().nullable(),
      /** A receipt is stored for it already (one that settled it, or an earlier late one). */
      has_receipt: z.boolean(),
    })
    .nullable(),
});
export type As2SentResponse = z.infer<typeof As2SentResponse>;

/** The receipt of a message pier sent was read: settle its delivery. */
export const As2AckRequest = z.object({
  type: z.literal('as2_ack'),
  message_id: z.uuid(),
  /** null: no delivery was waiting for it (it came after the deadline, or again); only noted. */
  delivery_id: z.number().int().nullable(),
  ok: z.boolean(),
  text: z.string().max(2048),
  info: z.record(z.string(), z.unknown()),
  receipt_size: z.number().int().min(0).nullable(),
  /** The receipt's bytes when it is small enough to keep in its payload row. */
  receipt_content: InlineContent.optional(),
});

const As2Done = z.object({
  type: z.literal('as2_done'),
  applied: z.boolean(),
  /** The receipt came before the sender reported its attempt: ask again shortly. */
  early: z.boolean().optional(),
});

/**
 * Every question the AS2 actors ask the core, each with the schema of its answer: a closed
 * set, so the core's dispatch and the actors' typed answers come from one table.
 */
const as2Questions = {
  as2_inbound: { request: As2InboundRequest, answer: As2InboundResponse },
  as2_outbound: { request: As2OutboundRequest, answer: As2OutboundResponse },
  as2_record: { request: As2RecordRequest, answer: As2Done },
  as2_sent: { request: As2SentRequest, answer: As2SentResponse },
  as2_ack: { request: As2AckRequest, answer: As2Done },
  cem_received: { request: CemReceivedRequest, answer: CemReceivedAnswer },
} as const;
type As2Questions = typeof as2Questions;

export const As2Request = z.discriminatedUnion('type', [
  As2InboundRequest,
  As2OutboundRequest,
  As2RecordRequest,
  As2SentRequest,
  As2AckRequest,
  CemReceivedRequest,
]);
export type As2Request = z.infer<typeof As2Request>;
/** The answer to one kind of question. */
export type As2AnswerTo<R extends As2Request> = z.infer<As2Questions[R['type']]['answer']>;
export type As2Response = As2AnswerTo<As2Request>;

/** Whether a channel request is one of the AS2 questions. */
export function isAs2Request(request: { type: string }): request is As2Request {
  return Object.hasOwn(as2Questions, request.type);
}

/** Checks an answer against the schema of the question it answers. */
export function parseAs2Answer<R extends As2Request>(request: R, answer: unknown): As2AnswerTo<R> {
  return as2Questions[request.type].answer.parse(answer) as As2AnswerTo<R>;
}
