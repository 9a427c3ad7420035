/**
 * fast-check arbitraries of interchanges in the JSON form: any delimiters the standards allow,
 * segments of any shape (simple values, composites, repetitions) with data that holds the
 * separators where EDIFACT can release them. Shared by the property tests and the benchmark.
 */
import fc from 'fast-check';
import {
  formName,
  type DelimitersJson,
  type EdiJson,
  type ElementValue,
  type SegmentJson,
  type SetJson,
} from './form.js';

const separators = [...`~*>^|:+'?!#@%&;\\/{}<=`];
const envelopeTags = new Set([
  'ISA',
  'IEA',
  'GS',
  'GE',
  'ST',
  'SE',
  'UNA',
  'UNB',
  'UNZ',
  'UNG',
  'UNE',
  'UNH',
  'UNT',
]);

const tag = fc.stringMatching(/^[A-Z][A-Z0-9]{1,2}$/).filter((t) => !envelopeTags.has(t));

function valueChars(d: DelimitersJson, unicode: boolean): fc.Arbitrary<string> {
  const specials = new Set(Object.values(d).filter((c) => c !== ''));
  // EDIFACT data may hold any separator (it is released); X12 data may hold none.
  const pool = [...'ABCXYZabc0123456789 .,-', ...separators].filter(
    (c) => d.release !== '' || !specials.has(c),
  );
  if (unicode) pool.push('ü', 'ß', '東', 'é');
  return fc.string({ unit: fc.constantFrom(...pool), maxLength: 12 });
}

function element(d: DelimitersJson, unicode: boolean): fc.Arbitrary<ElementValue> {
  const v = valueChars(d, unicode);
  const composite = fc.array(v, { minLength: 2, maxLength: 4 });
  const options: fc.Arbitrary<ElementValue>[] = [v, v, composite];
  if (d.repetition !== '')
    options.push(
      fc.array(fc.oneof(fc.tuple(v), composite), { minLength: 2, maxLength: 3 }) as fc.Arbitrary<string[][]>,
    );
  return fc.oneof(...options);
}

const segment = (d: DelimitersJson, unicode: boolean): fc.Arbitrary<SegmentJson> =>
  fc.record({ tag, elements: fc.array(element(d, unicode), { minLength: 1, maxLength: 8 }) });

const delimiters = (standard: 'x12' | 'edifact'): fc.Arbitrary<DelimitersJson> =>
  fc
    .shuffledSubarray(separators, { minLength: 5, maxLength: 5 })
    .chain(([segment, element, component, repetition, release]) =>
      fc.record({
        segment: fc.constantFrom(segment!, '\n'),
        element: fc.constant(element!),
        component: fc.constant(component!),
        repetition: fc.constantFrom(repetition!, ''),
        release: fc.constant(standard === 'x12' ? '' : release!),
      }),
    )
    .filter((d) => d.segment !== '\n' || standard === 'x12');

const lineBreak = fc.constantFrom('', '\n', '\r\n');

function x12(d: DelimitersJson, sets: SegmentJson[][], lb: string, trailing: string): EdiJson {
  const version = d.repetition === '' ? '00401' : '00501';
  const s = (tag: string, ...elements: ElementValue[]): SegmentJson => ({ tag, elements });
  const isa = s(
    'ISA',
    '00',
    ' '.repeat(10),
    '00',
    ' '.repeat(10),
    'ZZ',
    'PIER'.padEnd(15),
    'ZZ',
    'PARTNER'.padEnd(15),
    '261125',
    '0930',
    d.repetition || 'U',
    version,
    '000000001',
    '0',
    'P',
    d.component,
  );
  const transactions: SetJson[] = sets.map((segments, i) => ({
    header: s('ST', '850', String(i + 1).padStart(4, '0')),
    segments,
    trailer: s('SE', String(segments.length + 2), String(i + 1).padStart(4, '0')),
  }));
  return {
    format: formName,
    standard: 'x12',
    delimiters: d,
    una: null,
    leading: '',
    line_break: d.segment === '\n' ? '' : lb,
    header: isa,
    groups: [
      {
        header: s('GS', 'PO', 'PIER', 'PARTNER', '20261125', '0930', '1', 'X', '004010'),
        transactions,
        trailer: s('GE', String(sets.length), '1'),
      },
    ],
    trailer: s('IEA', '1', '000000001'),
    trailing,
  };
}

function edifact(
  d: DelimitersJson,
  sets: SegmentJson[][],
  lb: string,
  trailing: string,
  unicode: boolean,
  withUna: boolean,
): EdiJson {
  const s = (tag: string, ...elements: ElementValue[]): SegmentJson => ({ tag, elements });
  const messages: SetJson[] = sets.map((segments, i) => ({
    header: s('UNH', String(i + 1), ['ORDERS', 'D', '96A', 'UN']),
    segments,
    trailer: s('UNT', String(segments.length + 2), String(i + 1)),
  }));
  return {
    format: formName,
    standard: 'edifact',
    delimiters: d,
    una: withUna
      ? `UNA${d.component}${d.element}.${d.release || ' '}${d.repetition || ' '}${d.segment}`
      : null,
    leading: '',
    line_break: lb,
    header: s(
      'UNB',
      [unicode ? 'UNOY' : 'UNOC', d.repetition === '' ? '3' : '4'],
      ['PIER', '14'],
      ['PARTNER', '14'],
      ['261125', '0930'],
      '1',
    ),
    messages,
    trailer: s('UNZ', String(sets.length), '1'),
    trailing,
  };
}

/** A well-formed interchange in the JSON form, in its canonical shape (what reading its bytes gives). */
const edifactDefaults = (repetition: string): DelimitersJson => ({
  segment: "'",
  element: '+',
  component: ':',
  repetition,
  release: '?',
});

/** A well-formed interchange in the JSON form, in its canonical shape (what reading its bytes gives). */
export const interchangeDocument: fc.Arbitrary<EdiJson> = fc
  .record({
    standard: fc.constantFrom('x12' as const, 'edifact' as const),
    unicode: fc.boolean(),
    withUna: fc.boolean(),
  })
  .chain(({ standard, unicode, withUna }) =>
    // Without a UNA an EDIFACT interchange has the default separators (ISO 9735).
    (standard === 'edifact' && !withUna
      ? fc.constantFrom('', '*').map(edifactDefaults)
      : delimiters(standard)
    ).chain((d) =>
      fc
        .record({
          sets: fc.array(fc.array(segment(d, standard === 'edifact' && unicode), { maxLength: 6 }), {
            minLength: 1,
            maxLength: 3,
          }),
          lb: lineBreak,
          trailing: fc.constantFrom('', '\n', '\r\n'),
        })
        .map(({ sets, lb, trailing }) =>
          standard === 'x12' ? x12(d, sets, lb, trailing) : edifact(d, sets, lb, trailing, unicode, withUna),
        ),
    ),
  );
