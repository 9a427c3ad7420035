// Covers the JSON form's reader of UTF-8 bytes: a refusal counts characters of the text, not bytes, wherever the bytes are cut (characters of two, three and four bytes before it), and a character cut between two pushes is read whole.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { annotate } from './annotate.js';
import { jsonTextToEdi, jsonToEdi, ediToJsonText } from './translate.js';

const edi = readFileSync(
  path.join(import.meta.dirname, '../../test/fixtures/edi-json/x12-850-00401-tilde-lf.edi'),
);
const json = ediToJsonText(edi, annotate);
const cur = '{"tag":"CUR","elements":["BY","EUR"],"positions":["CUR01","CUR02"]}';
// Names are annotations, ignored when written back: any characters may stand there.
const named = json.replace(cur, '{"tag":"CUR","elements":["BY","EUR"],"names":["é € 𝄞","x"]}');

async function streamed(bytes: Buffer, size: number): Promise<Buffer> {
  const out: Buffer[] = [];
  async function* slices() {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  }
  for await (const b of jsonToEdi(slices())) out.push(b);
  return Buffer.concat(out);
}

t.test('characters beyond ASCII, cut anywhere, read as they are', async (t) => {
  t.ok(named.includes('𝄞'));
  t.ok(jsonTextToEdi(named).equals(edi));
  const bytes = Buffer.from(named, 'utf8');
  for (const size of [1, 2, 3, 5, 7, 64, 4096])
    t.ok((await streamed(bytes, size)).equals(edi), `slices of ${size}`);
});

t.test('a refusal after them counts characters, as in the text', async (t) => {
  const at = named.indexOf(',\n', named.indexOf('𝄞'));
  const broken = `${named.slice(0, at)}x${named.slice(at)}`;
  const message = `the JSON document is not the EDI JSON form: expected , or ] (at character ${at + 1})`;
  t.throws(() => jsonTextToEdi(broken), { message });
  const bytes = Buffer.from(broken, 'utf8');
  for (const size of [1, 3, 7, 4096])
    await t.rejects(streamed(bytes, size), { message }, `slices of ${size}`);
});
