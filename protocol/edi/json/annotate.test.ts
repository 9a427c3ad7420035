// Covers the annotations of the EDI JSON form: X12 position names (BEG03, a component's PO107-01), EDIFACT directory names, composite positions (C002.1001) and code meanings; annotated JSON is written back to the same bytes, its annotations ignored.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { annotate } from './annotate.js';
import { ediToJsonText, jsonTextToEdi } from './translate.js';
import type { EdiJson } from './form.js';

const dir = path.join(import.meta.dirname, '../../../test/fixtures/edi-json');
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
