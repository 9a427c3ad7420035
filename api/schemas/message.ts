/** Messages (docs/api/messages.md, docs/api/lifecycles.md#message-status, docs/api/conventions.md#lists): the record, its deliveries, history and payload stages. */
import { z } from 'zod';
// The vocabulary lives with the status table (pure data, no server code), so both use one list.
import { deliveryStates } from '../../flow/tables/delivery-states.js';
import { messageStages, messageStatuses } from '../../flow/tables/status.js';
import { listSchema, pagingQuery, parameterKey, recordName, singleLineText } from './common.js';
import { timeBound } from './time-filter.js';

export { messageStatuses };

/** Stages a payload can be asked for; `message` is made from `headers` and `received`. */
export const payloadStages = ['unpacked', 'message', 'received', 'headers', 'receipt'] as const;
export type PayloadStageName = (typeof payloadStages)[number];

export const DeliveryRecord = z.object({
  id: z.number().int(),
  target: z.string().describe('Target plugin instance'),
  state: z.enum(deliveryStates),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  last_error: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
});
export type DeliveryRecord = z.infer<typeof DeliveryRecord>;

export const HistoryRecord = z.object({
  id: z.number().int(),
  created_at: z.string(),
  kind: z.enum([
    'status_changed',
    'delivery_changed',
    'mdn_received',
    'mdn_refused',
    'duplicate_received',
    'redispatch_requested',
    'redeliver_requested',
  ]),
  old_status: z.string().nullable().optional(),
  new_status: z.string().optional(),
  text: z.string().optional(),
  delivery_id: z.number().int().optional(),
  target: z.string().optional(),
  old_state: z.string().nullable().optional(),
  new_state: z.string().optional(),
});
export type HistoryRecord = z.infer<typeof HistoryRecord>;

export const PayloadEntry = z.object({ size_bytes: z.number().int(), stored_at: z.string() });

/** What became of an interchange's functional acknowledgement (docs/partner-setup.md). */
export const acknowledgementStatuses = ['expected', 'acknowledged', 'rejected', 'overdue', 'sent'] as const;

export const MessageRecord = z.object({
  id: z.uuid(),
  status: z.enum(messageStatuses),
  stage: z.enum(messageStages),
  direction: z.enum(['inbound', 'outbound']),
  from: z.string(),
  to: z.string(),
  file_name: z.string(),
  source_type: z.string().describe('Type of the source instance, or api for a message sent by hand'),
  source_name: z.string().describe('Name of the source instance, or api'),
  refusal: z.string().nullable().describe('Why the source refused the message'),
  created_at: z.string(),
  updated_at: z.string(),
  deliveries: z.array(DeliveryRecord),
  history: z.array(HistoryRecord),
  payloads: z.record(z.string(), PayloadEntry).describe('Payload stages the message has, by stage'),
  protocols: z
    .record(z.string(), z.unknown())
    .describe(
      'By protocol module: as2 (headers, MIC, receipt), edi (the X12 or EDIFACT envelope: sender, receiver, control numbers, document types, and the functional acknowledgement: status expected, acknowledged, rejected, overdue or sent)',
    ),
});
export type MessageRecord = z.infer<typeof MessageRecord>;

export const MessageListQuery = z.object({
  ...pagingQuery(50),
  q: singleLineText(998)
    .min(1)
    .optional()
    .describe(
      'Find by file name (the whole name or its beginning, any case), AS2 Message-ID, the ' +
        'partner’s Message-ID (of its receipt), or a party (the beginning of the name of the ' +
        'organization or partner it is from or to); angle brackets around a Message-ID are optional',
    ),
  direction: z.enum(['inbound', 'outbound']).optional().describe('inbound: from a partner; outbound: to one'),
  target: recordName.optional().describe('Messages with a delivery to this target plugin instance'),
  status: z.enum(messageStatuses).optional(),
  from: recordName.optional().describe('Party name'),
  to: recordName.optional().describe('Party name'),
  since: timeBound('from').describe('RFC 3339 time: created at or after'),
  edi_sender: singleLineText(35)
    .min(1)
    .optional()
    .describe("Interchange id of the EDI envelope's sender (ISA06, UNB sender)"),
  edi_receiver: singleLineText(35)
    .min(1)
    .optional()
    .describe("Interchange id of the EDI envelope's receiver (ISA08, UNB recipient)"),
  edi_control: singleLineText(35)
    .min(1)
    .optional()
    .describe('Interchange control number (ISA13, UNB 0020) or group control number (GS06, UNG 0048)'),
  document_type: z
    .string()
    .regex(
      /^([0-9]{3}|[A-Z]{6})$/,
      'Must be an X12 transaction set id such as 850 or an EDIFACT message type such as ORDERS',
    )
    .optional()
    .describe('Document type the EDI envelope names (850, 856, ORDERS, INVOIC…)'),
  acknowledgement: z
    .enum(acknowledgementStatuses)
    .optional()
    .describe(
      'What became of the functional acknowledgement: expected, acknowledged, rejected, overdue (outbound) or sent (inbound)',
    ),
});

export const messageList = listSchema('messages', MessageRecord);

export const MessageParams = z.object({ id: z.uuid('Must be a message id (UUID)') });
export const DeliveryParams = z.object({
  id: z.uuid('Must be a message id (UUID)'),
  delivery_id: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'Must be a delivery id')
    .transform(Number)
    .refine((n) => n >= 1, 'Must be a delivery id')
    .meta({ [parameterKey]: { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 } }),
});

export const PayloadQuery = z.object({
  stage: z.enum(payloadStages).optional(),
  format: z
    .enum(['raw', 'json'])
    .optional()
    .describe(
      'raw: the bytes as stored; json: an X12 or EDIFACT interchange in its JSON form (also chosen by Accept: application/json)',
    ),
});

/** The form of POST /messages, for the OpenAPI document (the route reads the parts itself). */
export const MessageUpload = z.object({
  from: recordName.describe('Party name: an organization or a partner'),
  to: recordName.describe('Party name: the other kind'),
  target: recordName.optional().describe('Target instance; without it, the one target the routes name'),
  file: z.string().describe('The file, at most 64 MiB (binary part)'),
});
