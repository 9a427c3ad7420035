// Covers the annotations of the EDI JSON form: X12 position names (BEG03, a component's PO107-01), EDIFACT names and code meanings from directory D.96A (segments beyond the old hand-made set too), composite positions (C002.1001); annotated JSON is written back to the same bytes, its annotations ignored; and the fast annotation of plain segments writes what annotating the segment object would.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { annotate } from './annotate.js';
import type { Annotator } from './json-writer.js';
import { ediToJsonText, jsonTextToEdi } from './translate.js';
import type { EdiJson } from './form.js';

const dir = path.join(import.meta.dirname, '../../test/fixtures/edi-json');
const read = (file: string) => readFileSync(path.join(dir, file));

t.test('X12: positions only', async (t) => {
  const bytes = read('x12-855-00501-crlf-repetition.edi');
  const text = ediToJsonText(bytes, annotate);
  const doc = JSON.parse(text) as EdiJson;
  const [bak, ref] = doc.groups![0]!.transactions![0]!.segments;
  t.same(bak!.positions, ['BAK01', 'BAK02', 'BAK03', 'BAK04']);
  t.same(ref!.elements, ['VN', [['SO-77812'], ['SO-77813']]], 'a repeated element: one array per occurrence');
  t.same(ref!.positions, ['REF01', 'REF02']);
  t.equal(bak!.name, undefined, 'no names: the X12 dictionaries are licensed');
  t.ok(jsonTextToEdi(text).equals(bytes), 'annotated JSON gives the same bytes');
});

t.test('EDIFACT: directory names, composite positions and code meanings', async (t) => {
  const bytes = read('edifact-orders-una-lf-release.edi');
  const text = ediToJsonText(bytes, annotate);
  const doc = JSON.parse(text) as EdiJson;
  const bgm = doc.messages![0]!.segments[0]!;
  t.equal(bgm.name, 'Beginning of message');
  t.same(bgm.positions, ['C002.1001', 'BGM02', 'BGM03']);
  t.same(bgm.meanings, { 'C002.1001': 'Order', BGM03: 'Original' });
  const nad = doc.messages![0]!.segments.find((s) => s.tag === 'NAD')!;
  t.same(nad.names![0], 'Party qualifier');
  t.equal(nad.meanings!['NAD01'], 'Buyer');
  t.ok(jsonTextToEdi(text).equals(bytes), 'annotated JSON gives the same bytes');
});

// An invoice with segments, composites and codes the hand-made table of the first version lacked.
const invoice = Buffer.from(
  "UNA:+.? '" +
    [
      'UNB+UNOC:3+5412345000013:14+4012345000009:14+261125:0930+INV42',
      'UNH+1+INVOIC:D:96A:UN',
      'BGM+380+INV-2026-042+9',
      'ALC+C++1+1+ABK:::Packing surcharge',
      'ALC+A',
      'MOA+86:612.40:EUR',
      'PRI+AAE:4.25',
      'UNS+S',
      'UNT+8+1',
      'UNZ+1+INV42',
    ].join("'") +
    "'",
  'latin1',
);

t.test('EDIFACT: the whole directory D.96A names segments, elements and codes', async (t) => {
  const doc = JSON.parse(ediToJsonText(invoice, annotate)) as EdiJson;
  const [, alc, allowance, moa, pri, uns] = doc.messages![0]!.segments;
  t.equal(alc!.name, 'Allowance or charge');
  t.same(alc!.positions, [
    'ALC01',
    'C552.1230',
    'ALC03',
    'ALC04',
    ['C214.7161', 'C214.1131', 'C214.3055', 'C214.7160'],
  ]);
  t.same(alc!.names![0], 'Allowance or charge qualifier');
  t.same(alc!.names![4], [
    'Special services, coded',
    'Code list qualifier',
    'Code list responsible agency, coded',
    'Special service',
  ]);
  t.same(alc!.meanings, {
    ALC01: 'Charge',
    ALC03: 'Bill back',
    ALC04: 'First step of calculation',
    'C214.7161': 'Miscellaneous',
  });
  t.same(
    allowance!.meanings,
    { ALC01: 'Allowance' },
    'a segment of one plain element, annotated on the fast path',
  );
  t.equal(moa!.name, 'Monetary amount');
  t.same(moa!.names, [['Monetary amount type qualifier', 'Monetary amount', 'Currency, coded']]);
  t.same(moa!.meanings, { 'C516.5025': 'Message total monetary amount' });
  t.same(
    pri!.meanings,
    {
      'C509.5125': 'Information price, excluding allowances or charges, including taxes',
    },
    'a code name on two lines of the directory',
  );
  t.equal(uns!.name, 'Section control', 'service segments are still named');
  t.ok(
    jsonTextToEdi(ediToJsonText(invoice, annotate)).equals(invoice),
    'annotated JSON gives the same bytes',
  );
});

t.test('a segment the directory lacks gets positions only', async (t) => {
  const bytes = Buffer.from(invoice.toString('latin1').replace("UNS+S'", "ZZZ+S'"), 'latin1');
  const doc = JSON.parse(ediToJsonText(bytes, annotate)) as EdiJson;
  const zzz = doc.messages![0]!.segments[5]!;
  t.equal(zzz.tag, 'ZZZ');
  t.equal(zzz.name, undefined);
  t.same(zzz.positions, ['ZZZ01']);
  t.equal(zzz.names, undefined);
});

t.test('plain segments are annotated as the segment object would be', async (t) => {
  // The general path: the same annotator without its fast way for plain segments.
  const general: Annotator = (s, standard) => annotate(s, standard);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.edi'))) {
    const bytes = read(file);
    t.equal(ediToJsonText(bytes, annotate), ediToJsonText(bytes, general), file);
  }
  t.equal(ediToJsonText(invoice, annotate), ediToJsonText(invoice, general), 'the invoice above');
});
