/**
 * A partner's envelope settings (docs/edi-json.md#envelope-settings): what pier writes into the
 * envelopes of interchanges it builds for the partner, stored on the partner so a request need
 * not bring them. Each message names the setting it is about, because the API reports problems
 * per top-level property (`edi_envelope`) and the person must see which of them to change.
 */
import { z } from 'zod';

/** Whether a character may be a delimiter: printable, and not a letter, digit or space. */
export const delimiterCharacter = /^[^A-Za-z0-9\s]$/;

/** One delimiter: one printable character that cannot be data's (no letter, digit or space). */
const delimiter = (name: string, what: string, fallback: string) =>
  z
    .string()
    .length(1, `${name} (${what}): one character`)
    .regex(delimiterCharacter, `${name} (${what}): not a letter, digit, space or control character`)
    .default(fallback)
    .describe(`${what}; default ${fallback}`);

/** A repetition separator: one such character, or empty for the version's usual one. */
const repetition = (name: string, what: string, usual: string) =>
  z
    .string()
    .regex(
      /^[^A-Za-z0-9\s]?$/,
      `${name} (${what}): one character that is not a letter, digit or space, or empty`,
    )
    .default('')
    .describe(`${what}; empty: ${usual}`);

export const x12DelimiterNames = ['x12_element', 'x12_component', 'x12_repetition', 'x12_segment'] as const;
export const edifactDelimiterNames = [
  'edifact_element',
  'edifact_component',
  'edifact_repetition',
  'edifact_release',
  'edifact_segment',
] as const;

const fields = z.strictObject({
  x12_version: z
    .string()
    .regex(/^\d{5}$/, 'x12_version (ISA12): five digits, such as 00401 or 00501')
    .default('00401')
    .describe('X12 ISA12 interchange version; GS08 is it with a 0 after (004010)'),
  x12_element: delimiter('x12_element', 'X12 element separator', '*'),
  x12_component: delimiter('x12_component', 'X12 component separator, ISA16', '>'),
  x12_repetition: repetition(
    'x12_repetition',
    'X12 repetition separator, ISA11',
    '^ from version 00402, none before',
  ),
  x12_segment: delimiter('x12_segment', 'X12 segment terminator', '~'),
  edifact_syntax: z
    .string()
    .regex(
      /^UNO[A-Z]:[1-4]$/,
      'edifact_syntax (UNB 0001:0002): a syntax identifier and version, such as UNOC:3 or UNOA:2',
    )
    .default('UNOC:3')
    .describe('EDIFACT syntax identifier and version, UNB 0001:0002'),
  edifact_element: delimiter('edifact_element', 'EDIFACT data element separator', '+'),
  edifact_component: delimiter('edifact_component', 'EDIFACT component separator', ':'),
  edifact_repetition: repetition(
    'edifact_repetition',
    'EDIFACT repetition separator',
    '* from syntax version 4, none before',
  ),
  edifact_release: delimiter('edifact_release', 'EDIFACT release character', '?'),
  edifact_segment: delimiter('edifact_segment', 'EDIFACT segment terminator', "'"),
  test: z.boolean().default(false).describe('Test interchanges: X12 ISA15 T (else P), EDIFACT UNB 0035 1'),
  acknowledgement_requested: z
    .boolean()
    .default(false)
    .describe('Ask the partner for a functional acknowledgement: X12 ISA14 1, EDIFACT UNB 0031 1'),
});

/** The delimiters (by name) that an earlier one of the list uses already, each with that one's name. */
export function repeatedDelimiters(
  settings: Readonly<Record<string, unknown>>,
  names: readonly string[],
): { name: string; value: string; first: string }[] {
  const seen = new Map<string, string>();
  const repeated: { name: string; value: string; first: string }[] = [];
  for (const name of names) {
    const value = settings[name];
    if (typeof value !== 'string' || value === '') continue;
    const first = seen.get(value);
    if (first) repeated.push({ name, value, first });
    else seen.set(value, name);
  }
  return repeated;
}

/** Names each delimiter that another of the same standard uses already: they must all differ. */
function sameDelimiters(
  settings: Record<string, unknown>,
  names: readonly string[],
  ctx: z.RefinementCtx,
): void {
  for (const { name, value, first } of repeatedDelimiters(settings, names))
    ctx.addIssue({
      code: 'custom',
      message: `${name}: ${value} is ${first} already; each delimiter must differ`,
      path: [name],
    });
}

export const EdiEnvelopeSettings = fields
  .superRefine((s, ctx) => {
    sameDelimiters(s, x12DelimiterNames, ctx);
    sameDelimiters(s, edifactDelimiterNames, ctx);
  })
  .describe(
    'What pier writes in the envelopes of interchanges it builds for this partner: X12 version and delimiters, EDIFACT syntax and delimiters, test indicator, acknowledgement requested; a property left out takes its default, and a request may override each',
  );
export type EdiEnvelopeSettings = z.output<typeof EdiEnvelopeSettings>;

/** The settings of a partner stored before they existed, or with some left out: the defaults. */
export const envelopeSettingsOf = (stored: unknown): EdiEnvelopeSettings => {
  const parsed = EdiEnvelopeSettings.safeParse(stored ?? {});
  return parsed.success ? parsed.data : EdiEnvelopeSettings.parse({});
};
