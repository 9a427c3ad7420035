// Covers the EDI JSON form with generated input (fast-check): every interchange the generator builds survives JSON → EDI → JSON → EDI unchanged, streamed in random chunks too; and any bytes or JSON text is either translated or refused with an EdiJsonError, never another error and never a hang.
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { EdiJsonError } from './form.js';
import { interchangeDocument } from './fixtures/generate.js';
import {
  documentToEdi,
  ediToDocument,
  ediToJson,
  ediToJsonText,
  jsonTextToEdi,
  jsonToEdi,
} from './translate.js';

const dir = path.join(import.meta.dirname, '../../test/fixtures/edi-json');
const corpus = readdirSync(dir)
  .filter((f) => f.endsWith('.edi'))
  .map((f) => readFileSync(path.join(dir, f)));

async function* chunks(bytes: Buffer, sizes: number[]): AsyncGenerator<Buffer> {
  let i = 0;
  for (let k = 0; i < bytes.length; k++) {
    const size = sizes[k % sizes.length]!;
    yield bytes.subarray(i, i + size);
    i += size;
  }
}

t.test('an interchange the generator builds survives the round trip', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      interchangeDocument,
      fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 5 }),
      async (doc, sizes) => {
        const edi = documentToEdi(doc);
        const read = ediToDocument(edi);
        t.same(read, doc);
        if (!documentToEdi(read).equals(edi)) throw new Error('EDI → JSON → EDI changed the bytes');
        const parts: Buffer[] = [];
        for await (const bytes of ediToJson(chunks(edi, sizes))) parts.push(bytes);
        const json = Buffer.concat(parts).toString('utf8');
        if (json !== ediToJsonText(edi)) throw new Error('streamed JSON differs');
        const back: Buffer[] = [];
        for await (const b of jsonToEdi(chunks(Buffer.from(json, 'utf8'), sizes))) back.push(b);
        if (!Buffer.concat(back).equals(edi)) throw new Error('streamed JSON → EDI changed the bytes');
      },
    ),
    { numRuns: 300 },
  );
});

/** Either a translation or an EdiJsonError; anything else fails the property. */
function translatedOrRefused(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof EdiJsonError)) throw error;
    if (error.message.length < 10) throw new Error(`an unclear refusal: ${error.message}`);
  }
}

t.test('any bytes are translated or refused with a clear error', async (t) => {
  const mutated = fc
    .tuple(
      fc.constantFrom(...corpus),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
      fc.nat(),
    )
    .map(([bytes, edits, cut]) => {
      const copy = Buffer.from(bytes);
      for (const [at, value] of edits) copy[at % copy.length] = value;
      return copy.subarray(0, copy.length - (cut % 5 === 0 ? cut % copy.length : 0));
    });
  const started = Date.now();
  fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
        mutated,
      ),
      (bytes) => {
        translatedOrRefused(() => {
          const doc = ediToDocument(bytes);
          // What was read is written back exactly, unless line breaks differed (documented).
          const again = documentToEdi(doc);
          translatedOrRefused(() => ediToDocument(again));
        });
      },
    ),
    { numRuns: 2000 },
  );
  t.ok(Date.now() - started < 60_000, 'no hang');
});

t.test('any JSON text is translated or refused with a clear error', async (t) => {
  const texts = corpus.map((b) => ediToJsonText(b));
  const mutated = fc
    .tuple(
      fc.constantFrom(...texts),
      fc.array(
        fc.tuple(fc.nat(), fc.constantFrom('', '"', '{', '}', '[', ']', ',', ':', '1', 'null', 'x', '\\')),
        { maxLength: 4 },
      ),
    )
    .map(([text, edits]) => {
      let out = text;
      for (const [at, insert] of edits) {
        const i = at % out.length;
        out = out.slice(0, i) + insert + out.slice(i + 1);
      }
      return out;
    });
  fc.assert(
    fc.property(fc.oneof(fc.json(), mutated, fc.string()), (text) => {
      translatedOrRefused(() => jsonTextToEdi(text));
    }),
    { numRuns: 2000 },
  );
  t.pass('no other error');
});

t.test('refusals name the segment and element', async (t) => {
  const doc = ediToDocument(corpus.find((b) => b.toString('latin1').includes('BEG*'))!);
  const beg = doc.groups![0]!.transactions![0]!.segments[0]!;
  beg.elements[2] = 'PO*1';
  t.throws(() => documentToEdi(doc), {
    message: 'segment 4 (BEG), element 3: the value holds the separator "*", which X12 cannot carry in data',
    where: { segment: 4, tag: 'BEG', element: 3 },
  });
  beg.elements[2] = 'PO1';
  doc.groups![0]!.transactions![0]!.trailer = { tag: 'GE', elements: ['1', '1001'] };
  t.throws(() => documentToEdi(doc), { message: 'segment 16 must be SE, not "GE"' });
  t.throws(() => ediToDocument(Buffer.from('hello world')), {
    message:
      'the document is not an X12 or EDIFACT interchange: it starts with "hello world", not ISA, UNA or UNB',
  });
  t.throws(() => ediToDocument(Buffer.from("UNB+UNOC:3+A+B+261125:0930+1'UNH+1+ORDERS:D:96A:UN'BGM+220'")), {
    message: 'the interchange ends without its UNT trailer',
  });
  t.throws(() => ediToDocument(Buffer.from("UNB+UNOC:3+A+B+261125:0930+1'BGM+220'UNZ+0+1'")), {
    message: 'segment 2 (BGM) is outside a message',
  });
  t.throws(
    () =>
      ediToDocument(
        Buffer.from("UNB+UNOC:3+A+B+261125:0930+1'UNH+1+ORDERS:D:96A:UN'FTX+A?b'UNT+3+1'UNZ+1+1'"),
      ),
    {
      message: /^segment 3, element 1: the release character \? comes before "b"/,
    },
  );
});
