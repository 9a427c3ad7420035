/**
 * The JSON form of an X12 or EDIFACT interchange (docs/edi-json.md), as a schema for the
 * OpenAPI document: what GET /messages/{id}/payload?format=json answers. The translation
 * itself is edi/json/; this schema only describes its output.
 */
import { delimiterCharacter } from './edi-envelope.js';
import { recordName } from './common.js';
import { sentFileName } from './file-name.js';
import { z } from 'zod';

const element = z
  .union([z.string(), z.array(z.string()), z.array(z.array(z.string()))])
  .describe(
    'A simple element (string), a composite (its components) or a repeated element (one array of components per occurrence)',
  );

const segment = z
  .object({
    tag: z.string().describe('Segment tag: BEG, NAD, UNH…'),
    elements: z.array(element).describe('Elements after the tag; element 01 first'),
    name: z.string().optional().describe('Directory name of the segment (EDIFACT only; read-only)'),
    positions: z
      .array(z.union([z.string(), z.array(z.string())]))
      .optional()
      .describe('Position name of each element (BEG03, C002.1001); read-only, ignored when written'),
    names: z
      .array(z.union([z.string(), z.array(z.string()), z.null()]))
      .optional()
      .describe('Directory names of the elements (EDIFACT only; read-only)'),
    meanings: z
      .record(z.string(), z.string())
      .optional()
      .describe('Meaning of coded values by position name (EDIFACT only; read-only)'),
  })
  .describe('One segment');

const set = z
  .object({
    header: segment.describe('ST or UNH'),
    segments: z.array(segment),
    trailer: segment.describe('SE or UNT'),
  })
  .describe('An X12 transaction set or an EDIFACT message');

const group = z
  .object({
    header: segment.describe('GS or UNG'),
    transactions: z.array(set).optional().describe('X12'),
    messages: z.array(set).optional().describe('EDIFACT'),
    trailer: segment.describe('GE or UNE'),
  })
  .describe('A functional group');

/**
 * The parts of the form, each checked alone as it streams past: POST /messages/edi reads a large
 * body one segment, set and group at a time (api/resources/messages/send-json-body.ts).
 */
export const EdiJsonParts = { segment, set, group } as const;

export const EdiJsonDocument = z
  .object({
    format: z.literal('pier-edi-json/1'),
    standard: z.enum(['x12', 'edifact']),
    delimiters: z.object({
      segment: z.string().length(1),
      element: z.string().length(1),
      component: z.string().length(1),
      repetition: z.string().max(1).describe('Empty when the interchange has none'),
      release: z.string().max(1).describe('EDIFACT release character; empty for X12'),
    }),
    una: z.string().nullable().describe('The EDIFACT service string advice as it came, or null'),
    leading: z.string().describe('White space or a byte order mark before the interchange'),
    line_break: z.string().describe('What follows each segment terminator: "", "\\n" or "\\r\\n"'),
    header: segment.describe('ISA or UNB'),
    groups: z.array(group).optional().describe('X12 always; EDIFACT when its messages are grouped'),
    messages: z.array(set).optional().describe('EDIFACT messages outside groups'),
    trailer: segment.describe('IEA or UNZ'),
    trailing: z.string().describe('What follows the last terminator'),
  })
  .describe("An X12 or EDIFACT interchange in pier's JSON form; written back, it gives the same bytes");

const setWithoutEnvelope = z.object({
  type: z
    .union([z.string().min(1), z.array(z.string()).min(1)])
    .describe(
      'X12 transaction set id (850), or EDIFACT message identifier (ORDERS:D:96A:UN or its components)',
    ),
  functional_id: z
    .string()
    .max(2)
    .optional()
    .describe('X12 GS01; known for 810, 850, 855, 856, 860, 865, 997, 999'),
  segments: z.array(segment).describe('The segments between ST and SE (UNH and UNT)'),
});

/** A delimiter a request gives; the message names it, as problems are reported on `documents`. */
const requestDelimiter = (name: string) =>
  z
    .string()
    .regex(delimiterCharacter, `delimiters.${name}: one character that is not a letter, digit or space`);

/** Documents without envelopes: pier writes the envelopes and takes the control numbers. */
export const EdiDocumentsToSend = z.strictObject({
  standard: z.enum(['x12', 'edifact']),
  version: z
    .string()
    .max(16)
    .optional()
    .describe(
      "X12 ISA12, EDIFACT syntax identifier and version; default: the partner's edi_envelope (00401, UNOC:3)",
    ),
  test: z
    .boolean()
    .optional()
    .describe("X12 ISA15 T, EDIFACT UNB 0035 1; default: the partner's edi_envelope.test"),
  acknowledgement_requested: z
    .boolean()
    .optional()
    .describe(
      "X12 ISA14 1, EDIFACT UNB 0031 1; default: the partner's edi_envelope.acknowledgement_requested",
    ),
  delimiters: z
    .strictObject({
      segment: requestDelimiter('segment').optional(),
      element: requestDelimiter('element').optional(),
      component: requestDelimiter('component').optional(),
      repetition: requestDelimiter('repetition').or(z.literal('')).optional(),
      release: requestDelimiter('release').or(z.literal('')).optional(),
    })
    .optional()
    .describe("Each delimiter given replaces the partner's (edi_envelope); those left out are the partner's"),
  line_break: z
    .enum(['', '\n', '\r\n'])
    .default('\n')
    .describe('What pier writes after each segment terminator'),
  sets: z.array(setWithoutEnvelope).min(1).max(10_000),
});

export const EdiJsonSend = z
  .strictObject({
    // Names, as the multipart upload takes them: a text no record can have (U+0000 among
    // others, which PostgreSQL refuses in a query) is refused here, with its field named.
    from: recordName.describe('The organization sending'),
    to: recordName.describe('The partner receiving'),
    target: recordName.optional().describe('Target instance; without it, the one target the routes name'),
    file_name: sentFileName.optional().describe('Name of the built file; default <control number>.edi'),
    interchange: EdiJsonDocument.optional().describe(
      'A whole interchange, sent as given after the syntax check',
    ),
    documents: EdiDocumentsToSend.optional().describe(
      'Documents without envelopes; pier builds the interchange',
    ),
  })
  .describe('POST /messages/edi: an interchange in its JSON form, or documents pier puts in envelopes');
