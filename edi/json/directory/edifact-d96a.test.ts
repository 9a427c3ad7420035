// Covers the loader of the UN/EDIFACT directory D.96A (edifact-d96a.ts) against its data file: the file holds what its README says (127 segments, 161 composites, 462 data elements, 6,141 code names of 207 coded elements), every element a segment or composite lists has a name, every segment of the file is found with its composites opened into named components, code meanings come from the directory's lists and the hand-made service lists, the hand-made service segments win over the file, and a tag or code the directory lacks (an inherited object key among them) is unknown rather than a wrong name.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { edifactCode, edifactSegment } from './edifact-d96a.js';

interface DirectoryFile {
  directory: string;
  segments: Record<string, [string, string[]]>;
  composites: Record<string, [string, string[]]>;
  elements: Record<string, string>;
  codes: Record<string, Record<string, string>>;
}

const file = JSON.parse(
  gunzipSync(readFileSync(new URL('./edifact-d96a.json.gz', import.meta.url))).toString('utf8'),
) as DirectoryFile;
const count = (o: object) => Object.keys(o).length;

t.test('the data file holds the whole directory, as its README says', async (t) => {
  t.equal(file.directory, 'D.96A');
  t.equal(count(file.segments), 127, 'segments');
  t.equal(count(file.composites), 161, 'composites');
  t.equal(count(file.elements), 462, 'data elements');
  t.equal(count(file.codes), 207, 'coded data elements');
  t.equal(
    Object.values(file.codes).reduce((n, list) => n + count(list), 0),
    6141,
    'code names',
  );
  const unnamed: string[] = [];
  for (const [tag, [name, ids]] of Object.entries(file.segments)) {
    if (name === '') unnamed.push(tag);
    for (const id of ids) if (!file.composites[id] && !file.elements[id]) unnamed.push(`${tag} ${id}`);
  }
  for (const [id, [name, ids]] of Object.entries(file.composites)) {
    if (name === '') unnamed.push(id);
    for (const e of ids) if (!file.elements[e]) unnamed.push(`${id} ${e}`);
  }
  t.same(unnamed, [], 'every segment, composite and listed element has a name');
});

t.test('every segment of the file is found, its composites opened', async (t) => {
  const missing = Object.keys(file.segments).filter((tag) => edifactSegment(tag)?.name === undefined);
  t.same(missing, [], 'all 127 found');
  const bgm = edifactSegment('BGM')!;
  t.equal(bgm.name, 'Beginning of message');
  t.same(
    bgm.elements.map((e) => e.id),
    ['C002', '1004', '1225', '4343'],
  );
  t.equal(bgm.elements[0]!.name, 'Document/message name');
  t.same(bgm.elements[0]!.components?.[0], { id: '1001', name: 'Document/message name, coded' });
  t.equal(bgm.elements[1]!.components, undefined, 'a simple element has no components');
  const nad = edifactSegment('NAD')!;
  t.equal(nad.name, 'Name and address');
  t.equal(nad.elements.length, file.segments.NAD![1].length);
});

t.test('code meanings from the directory and from the service lists', async (t) => {
  t.equal(edifactCode('1001', '220'), 'Order');
  t.equal(edifactCode('2005', '137'), 'Document/message date/time');
  t.equal(edifactCode('0007', 'ZZZ'), 'Mutually defined', 'a service code (ISO 9735), hand-made');
  t.equal(edifactCode('6411', 'KGM'), 'Kilogram', 'a unit from UN/ECE Recommendation 20, hand-made');
  t.equal(edifactCode('1001', 'no such code'), undefined);
  t.equal(edifactCode('9999', '1'), undefined, 'an element with no list');
});

t.test('service segments are the hand-made ones; unknown tags are unknown', async (t) => {
  const unb = edifactSegment('UNB')!;
  t.equal(unb.name, 'Interchange header');
  t.same(
    unb.elements[1]!.components?.map((c) => c.id),
    ['0004', '0007', '0008'],
    'S002: sender id, qualifier, internal id',
  );
  for (const tag of ['XYZ', 'constructor', '__proto__', 'toString', 'hasOwnProperty'])
    t.equal(edifactSegment(tag), undefined, `${tag}: unknown`);
  t.equal(edifactCode('constructor', 'name'), undefined);
  t.equal(edifactCode('1001', '__proto__'), undefined);
  t.equal(edifactSegment('BGM'), edifactSegment('BGM'), 'a segment is worked out once');
});
