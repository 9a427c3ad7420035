// Covers the EDI JSON form's exactness on the corpus (test/fixtures/edi-json): every interchange read as JSON and written back gives its own bytes, in memory and streamed in chunks of every size from 1 byte, and the JSON text streams back the same way; and the documented normalisations (mixed line breaks, a space before each line break).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  documentToEdi,
  ediToDocument,
  ediToJson,
  ediToJsonText,
  jsonTextToEdi,
  jsonToEdi,
} from './translate.js';

const dir = path.join(import.meta.dirname, '../../test/fixtures/edi-json');
const corpus = readdirSync(dir).filter((f) => f.endsWith('.edi'));

async function* chunks(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function collect<T extends string | Buffer>(gen: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const c of gen) out.push(c);
  return out;
}

t.test('the corpus holds the documents it promises', async (t) => {
  const types = corpus.map((f) => ediToDocument(readFileSync(path.join(dir, f))));
  const x12 = types.flatMap((d) =>
    (d.groups ?? []).flatMap((g) => (g.transactions ?? []).map((s) => s.header.elements[0])),
  );
  const edifact = types.flatMap((d) =>
    [...(d.messages ?? []), ...(d.groups ?? []).flatMap((g) => g.messages ?? [])].map(
      (s) => (s.header.elements[1] as string[])[0],
    ),
  );
  for (const type of ['850', '855', '856', '810', '997']) t.ok(x12.includes(type), `X12 ${type}`);
  for (const type of ['ORDERS', 'ORDRSP', 'DESADV', 'INVOIC', 'CONTRL'])
    t.ok(edifact.includes(type), `EDIFACT ${type}`);
  t.ok(
    types.some((d) => d.una !== null) && types.some((d) => d.standard === 'edifact' && d.una === null),
    'UNA present and absent',
  );
  t.ok(new Set(types.map((d) => d.line_break)).size >= 3, 'segments followed by nothing, LF and CRLF');
  t.ok(new Set(types.map((d) => d.delimiters.element)).size >= 3, 'different element separators');
  t.ok(
    types.some((d) => d.delimiters.repetition !== '') && types.some((d) => d.delimiters.repetition === ''),
    'with and without a repetition separator',
  );
});

for (const file of corpus) {
  t.test(file, async (t) => {
    const bytes = readFileSync(path.join(dir, file));
    const doc = ediToDocument(bytes);
    t.ok(documentToEdi(doc).equals(bytes), 'EDI → document → EDI gives the same bytes');
    const text = ediToJsonText(bytes);
    t.same(JSON.parse(text), doc, 'the JSON text is the document');
    t.ok(jsonTextToEdi(text).equals(bytes), 'EDI → JSON text → EDI gives the same bytes');
    t.ok(
      documentToEdi(JSON.parse(JSON.stringify(doc))).equals(bytes),
      'through JSON.stringify and JSON.parse too',
    );
    for (const size of [1, 2, 3, 7, 64, 4096]) {
      const streamed = Buffer.concat(await collect(ediToJson(chunks(bytes, size)))).toString('utf8');
      t.equal(streamed, text, `EDI streamed in chunks of ${size} bytes gives the same JSON`);
      const jsonBytes = Buffer.from(text, 'utf8');
      const back = Buffer.concat(await collect(jsonToEdi(chunks(jsonBytes, size))));
      t.ok(back.equals(bytes), `JSON streamed in chunks of ${size} bytes gives the same EDI`);
    }
  });
}

t.test(
  'interchanges pier did not write (test/fixtures/edi) come back the same, or are refused for what they lack',
  async (t) => {
    const real = path.join(import.meta.dirname, '../../test/fixtures/edi');
    for (const file of ['node-x12-850.edi', 'node-x12-855.edi', 'pydifact-wikipedia-de.edi']) {
      const bytes = readFileSync(path.join(real, file));
      t.ok(documentToEdi(ediToDocument(bytes)).equals(bytes), file);
    }
    t.throws(() => ediToDocument(readFileSync(path.join(real, 'pydifact-order.edi'))), {
      message: 'the interchange ends without its UNZ trailer',
    });
  },
);

t.test(
  'line breaks between segments are written as the first one (the documented normalisation)',
  async (t) => {
    const mixed = readFileSync(path.join(dir, 'x12-850-00401-tilde-lf.edi'), 'latin1').replace(
      '~\nCUR',
      '~\r\nCUR',
    );
    const doc = ediToDocument(Buffer.from(mixed, 'latin1'));
    t.equal(doc.line_break, '\n');
    t.equal(documentToEdi(doc).toString('latin1'), mixed.replace('~\r\nCUR', '~\nCUR'));
  },
);

t.test(
  'a space before each line break is skipped between segments (the documented normalisation)',
  async (t) => {
    // The layout of pyx12's example834_5010.txt (test/fixtures/edi-normalised/README.md).
    const bytes = readFileSync(path.join(dir, '../edi-normalised/x12-834-space-before-line-break.edi'));
    const doc = ediToDocument(bytes);
    t.equal(doc.line_break, '\n', 'the line break, without the space');
    t.equal(doc.trailing, ' \n', 'what follows the trailer is kept');
    t.same(
      doc.groups!.map((g) => [
        g.header.tag,
        g.transactions!.map((s) => [s.header.elements[0], s.segments.length]),
      ]),
      [['GS', [['834', 8]]]],
    );
    t.same(doc.groups![0]!.transactions![0]!.segments[0], {
      tag: 'BGN',
      elements: ['00', 'ENR-0001', '20261127', '1200', '', '', '', '2'],
    });
    const normalised = bytes.toString('latin1').replace(/~ \n(?=.)/g, '~\n');
    t.equal(documentToEdi(doc).toString('latin1'), normalised, 'written back with ~ and the line feed');
    const text = ediToJsonText(bytes);
    for (const size of [1, 2, 3, 7, 64]) {
      const streamed = Buffer.concat(await collect(ediToJson(chunks(bytes, size)))).toString('utf8');
      t.equal(streamed, text, `streamed in chunks of ${size} bytes, the same JSON`);
    }
  },
);

t.test('values are data: EDIFACT release characters are taken out and put back', async (t) => {
  const doc = ediToDocument(readFileSync(path.join(dir, 'edifact-orders-una-lf-release.edi')));
  const ftx = doc.messages![0]!.segments.find((s) => s.tag === 'FTX')!;
  t.same(ftx.elements[3], ['Deliver to gate 3? ring twice', "Mind the step: it's 1+1 high"]);
  const invoic = ediToDocument(readFileSync(path.join(dir, 'edifact-invoic-unoy-ung-custom.edi')));
  const nad = invoic.groups![0]!.messages![0]!.segments.find(
    (s) => s.tag === 'NAD' && s.elements[0] === 'BY',
  )!;
  t.equal(nad.elements[3], '東京ピア株式会社', 'UNOY is read as UTF-8');
  t.equal(invoic.leading, '\uFEFF', 'the byte order mark is kept');
});
