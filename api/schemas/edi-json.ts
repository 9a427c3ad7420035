/**
 * The JSON form of an X12 or EDIFACT interchange (docs/edi-json.md), as a schema for the
 * OpenAPI document: what GET /messages/{id}/payload?format=json answers. The translation
 * itself is protocol/edi/json/; this schema only describes its output.
 */
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
