// Covers the EDI library: envelopes of X12 and EDIFACT read from the head only (a large or endless stream
// is let go after 64 KiB at most; segments across line breaks, with a space before each, released terminators, a splitter that splits
// only the tags asked for and numbers them among all), the streamed syntax check's findings in the standards' codes, and the
// 997, 999 and CONTRL built from them, read back as acknowledgements.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { readEnvelopeFrom, readEnvelopeOf, maxHeadBytes } from './envelope-reader.js';
import { checkInterchange } from './syntax-check.js';
import { SegmentSplitter } from './segments.js';
import { edifactDefaults } from './syntax.js';
import { buildAcknowledgement } from './acknowledgement.js';
import type { InterchangeReport } from './report.js';
import { edifactInterchange, purchaseOrder, x12Interchange } from '../test/helpers/edi.js';

const streamOf = (text: string, chunk = 7) => {
  const bytes = Buffer.from(text, 'latin1');
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(bytes.subarray(i, i + chunk));
  return Readable.from(parts);
};

async function report(text: string): Promise<InterchangeReport> {
  const r = await checkInterchange(streamOf(text, 13));
  if ('problem' in r) throw new Error(r.problem);
  return r;
}

t.test(
  'an X12 envelope: ids with qualifiers, control numbers, document types, delimiters from the ISA',
  async (t) => {
    const text = purchaseOrder(42, 'ACME', 'SHOPCO').replaceAll('*', '|').replaceAll('~', '\u0085');
    const reading = await readEnvelopeFrom(streamOf(text));
    t.equal(reading.kind, 'envelope');
    if (reading.kind !== 'envelope') return;
    t.same(reading.envelope, {
      standard: 'x12',
      version: '00401',
      sender: { qualifier: 'ZZ', id: 'ACME' },
      receiver: { qualifier: 'ZZ', id: 'SHOPCO' },
      interchange_control: '000000042',
      group_controls: ['42'],
      document_types: ['850'],
      test: false,
    });
    t.equal(reading.delimiters.element, '|');
    t.equal(reading.delimiters.segment, '\u0085');
  },
);

t.test('an EDIFACT envelope: UNA service characters, released separators, qualifiers', async (t) => {
  const text = edifactInterchange({
    sender: ['SENDER?+1', '14'],
    receiver: ['RECV', 'ZZZ'],
    ref: 'REF42',
    messages: [{ type: 'DESADV', ref: '1', body: ["BGM+351+DN?'1+9"] }],
  });
  const reading = readEnvelopeOf(Buffer.from(text));
  t.equal(reading.kind, 'envelope');
  if (reading.kind !== 'envelope') return;
  t.same(reading.envelope.sender, { qualifier: '14', id: 'SENDER+1' }, 'the release character is taken out');
  t.same(reading.envelope.receiver, { qualifier: 'ZZZ', id: 'RECV' });
  t.equal(reading.envelope.interchange_control, 'REF42');
  t.same(reading.envelope.document_types, ['DESADV']);
});

/** Two messages of an EDIFACT interchange, a segment a line, as files often hold them. */
const twoMessages = (bgm: string) =>
  [
    'UNB+UNOC:3+ACME:14+GLOBEX:ZZ+261124:0630+77',
    'UNH+1+ORDERS:D:96A:UN',
    bgm,
    'UNT+3+1',
    'UNH+2+INVOIC:D:96A:UN',
    'BGM+380+1+9',
    'UNT+3+2',
    'UNZ+2+77',
  ].join("'\r\n") + "'\r\n";

t.test('an EDIFACT envelope across line breaks, with and without release characters', async (t) => {
  for (const bgm of ['BGM+220+4711+9', "BGM+220+47?'11?+2+9"]) {
    const reading = readEnvelopeOf(Buffer.from(twoMessages(bgm)));
    t.equal(reading.kind, 'envelope', bgm);
    if (reading.kind !== 'envelope') continue;
    t.same(reading.envelope.document_types, ['ORDERS', 'INVOIC'], `every message's type: ${bgm}`);
    t.same(reading.envelope.receiver, { qualifier: 'ZZ', id: 'GLOBEX' });
    t.equal(reading.envelope.interchange_control, '77');
  }
});

t.test('an X12 envelope with a space before each line break: every group and set is read', async (t) => {
  // The layout of pyx12's example834_5010.txt: `~`, a space and a line feed after each segment.
  const text = readFileSync(
    path.join(import.meta.dirname, '../test/fixtures/edi-normalised/x12-834-space-before-line-break.edi'),
    'latin1',
  );
  t.match(text, /~ \nGS\*/, 'the fixture has the layout');
  const reading = await readEnvelopeFrom(streamOf(text));
  t.match(reading, {
    kind: 'envelope',
    envelope: { group_controls: ['834'], document_types: ['834'], interchange_control: '000000834' },
  });
  const checked = await report(text);
  t.same(checked.notes, [], 'no segment outside its set');
  t.same(checked.groups[0]!.sets[0]!.errors, [], 'the set is clean');
});

t.test('a splitter asked for some tags returns those, numbered among all the segments', async (t) => {
  // The document number as the element holds it: release characters are kept in elements.
  for (const [bgm, number] of [
    ['BGM+220+4711+9', '4711'],
    ["BGM+220+47?'11?+2+9", "47?'11?+2"],
  ] as const) {
    const splitter = new SegmentSplitter(edifactDefaults, new Set(['UNH', 'BGM']));
    const segments = splitter.push(twoMessages(bgm));
    t.same(
      segments.map((s) => [s.position, s.tag, s.elements[1]]),
      [
        [2, 'UNH', 'ORDERS:D:96A:UN'],
        [3, 'BGM', number],
        [5, 'UNH', 'INVOIC:D:96A:UN'],
        [6, 'BGM', '1'],
      ],
      bgm,
    );
    t.equal(splitter.count, 8, 'every segment counted');
  }
});

t.test('payloads that are not EDI, or whose envelope is broken, say so', async (t) => {
  t.same(readEnvelopeOf(Buffer.from('%PDF-1.7 ...')), { kind: 'not-edi' });
  t.same(readEnvelopeOf(Buffer.from('')), { kind: 'not-edi' });
  const short = readEnvelopeOf(Buffer.from('ISA*00*short~'));
  t.equal(short.kind, 'broken');
  t.match(short, { problem: /cut short|shorter/ });
});

t.test('an envelope whose ids hold control characters is broken, not read as it came', async (t) => {
  const edifact = edifactInterchange({
    sender: ['VIC\r\nTIM', 'ZZ'],
    receiver: ['BOB', 'ZZ'],
    ref: '1',
    messages: [{ type: 'ORDERS', ref: '1', body: ['BGM+220+PO1+9'] }],
  });
  t.same(readEnvelopeOf(Buffer.from(edifact)), {
    kind: 'broken',
    standard: 'edifact',
    problem: "the interchange's sender id contains control characters",
  });
  const receiver = edifactInterchange({
    sender: ['ALICE', 'ZZ'],
    receiver: ['BOB', 'Z\u0000'],
    ref: '1',
    messages: [{ type: 'ORDERS', ref: '1', body: ['BGM+220+PO1+9'] }],
  });
  t.match(readEnvelopeOf(Buffer.from(receiver)), { kind: 'broken', problem: /receiver qualifier/ });
  const x12 = purchaseOrder(1, 'ALICE\u0007', 'BOB');
  t.same(readEnvelopeOf(Buffer.from(x12)), {
    kind: 'broken',
    standard: 'x12',
    problem: "the interchange's sender id contains control characters",
  });
  t.equal(
    readEnvelopeOf(Buffer.from(purchaseOrder(1, 'ALICE', 'BOB'))).kind,
    'envelope',
    'clean ids are read',
  );
});

t.test(
  'only the head is read: a 4 MiB interchange and an endless stream are let go after 64 KiB',
  async (t) => {
    const big = purchaseOrder(7, 'ACME', 'SHOPCO', 150_000);
    t.ok(big.length > 4 * 1024 * 1024, `${big.length} bytes`);
    let pulled = 0;
    const counted = Readable.from(
      (function* () {
        const bytes = Buffer.from(big);
        for (let i = 0; i < bytes.length; i += 16 * 1024) {
          pulled += 1;
          yield bytes.subarray(i, i + 16 * 1024);
        }
      })(),
    );
    const reading = await readEnvelopeFrom(counted);
    t.equal(reading.kind, 'envelope');
    t.ok(pulled <= 2, `read ${pulled} chunks of 16 KiB`);
    t.ok(counted.destroyed, 'the stream is let go');

    // A head that never shows a transaction set: read up to the bound, then answered.
    let endless = 0;
    const isa = purchaseOrder(8, 'A', 'B').split('\n')[0]!;
    const stream = Readable.from(
      (function* () {
        yield Buffer.from(isa + '\n');
        for (;;) {
          endless += 1;
          yield Buffer.from('NTE*GEN*padding~\n'.repeat(64));
        }
      })(),
    );
    const padded = await readEnvelopeFrom(stream);
    t.equal(padded.kind, 'envelope', 'the envelope is what the bounded head holds');
    t.ok(endless * 64 * 17 <= maxHeadBytes + 2048, `${endless} chunks read`);
  },
);

t.test('a clean X12 interchange is acknowledged with a 997 accepting it', async (t) => {
  const r = await report(purchaseOrder(42, 'ACME', 'SHOPCO', 3));
  const ack = buildAcknowledgement(r, '997', 77, new Date('2026-11-23T12:00:00Z'));
  t.equal(ack.accepts_all, true);
  t.equal(
    ack.text,
    [
      'ISA*00*          *00*          *ZZ*SHOPCO         *ZZ*ACME           *261123*1200*U*00401*000000077*0*P*>~',
      'GS*FA*SHOPCO*ACME*20261123*1200*770*X*004010~',
      'ST*997*0001~',
      'AK1*PO*42~',
      'AK2*850*0001~',
      'AK5*A~',
      'AK9*A*1*1*1~',
      'SE*6*0001~',
      'GE*1*770~',
      'IEA*1*000000077~',
      '',
    ].join('\n'),
  );
});

t.test(
  'X12 syntax errors are reported with AK3/AK4/AK5/AK9 codes, and with IK3/IK4/IK5 in a 999',
  async (t) => {
    const text = x12Interchange({
      sender: ['ZZ', 'ACME'],
      receiver: ['01', '123456789'],
      control: 9,
      groups: [
        {
          functionalId: 'PO',
          control: '9',
          geCount: 5,
          sets: [
            { type: '850', control: '0001', body: ['BEG*00*SA*PO1**20261123'], seCount: 9 },
            { type: '850', control: '0002', body: ['BEG*00*SA*PO2**20261123'], seControl: '0003' },
            { type: '850', control: '0003', body: ['BEG*00*SA*PO3\u0007**20261123', 'b@d*1'] },
            { type: '850', control: '0004', body: ['BEG*00*SA*PO4**20261123'] },
          ],
        },
      ],
    });
    const r = await report(text);
    const sets = r.groups[0]!.sets;
    t.same(sets[0]!.errors, ['4'], 'SE01 differs from the count: AK5 code 4');
    t.same(sets[1]!.errors, ['3'], 'SE02 differs from ST02: AK5 code 3');
    t.same(sets[2]!.segment_errors, [
      { tag: 'BEG', position: 2, code: '8', elements: [{ position: 3, code: '6', data: 'PO3\u0007' }] },
      { tag: 'b@d', position: 3, code: '1', elements: [] },
    ]);
    t.same(r.groups[0]!.errors, ['5'], 'GE01 differs from the sets: AK9 code 5');
    const ack997 = buildAcknowledgement(r, '997', 1, new Date('2026-11-23T12:00:00Z')).text;
    t.match(ack997, /AK2\*850\*0001~\nAK5\*R\*4~/);
    t.match(ack997, /AK2\*850\*0002~\nAK5\*R\*3~/);
    t.match(ack997, /AK2\*850\*0003~\nAK3\*BEG\*2\*\*8~\nAK4\*3\*\*6\*PO3~\nAK3\*b@d\*3\*\*1~\nAK5\*R~/);
    t.match(ack997, /AK2\*850\*0004~\nAK5\*A~/);
    t.match(ack997, /AK9\*R\*4\*4\*0\*5~/, 'a group error rejects the group');
    const ack999 = buildAcknowledgement(r, '999', 2, new Date('2026-11-23T12:00:00Z')).text;
    t.match(ack999, /\*\^\*00501\*000000002\*/);
    t.match(ack999, /ST\*999\*0001\*005010X231A1~\nAK1\*PO\*9\*004010~/);
    t.match(ack999, /IK3\*BEG\*2\*\*8~\nIK4\*3\*\*6\*PO3~\nIK3\*b@d\*3\*\*1~\nIK5\*R~/);
  },
);

t.test('a 997 or 999 pier built is read back as the acknowledgement of the group it names', async (t) => {
  const r = await report(purchaseOrder(314, 'ACME', 'SHOPCO'));
  for (const kind of ['997', '999'] as const) {
    const ack = await report(buildAcknowledgement(r, kind, 5, new Date()).text);
    t.same(ack.envelope.document_types, [kind]);
    t.same(ack.groups[0]!.sets[0]!.acknowledges, { group_control: '314', accepted: true });
    t.same(ack.envelope.sender, { qualifier: 'ZZ', id: 'SHOPCO' }, 'sent back by the receiver');
  }
});

t.test(
  'EDIFACT errors are reported in a CONTRL with UCM, UCS and UCD; a clean interchange with UCI action 7',
  async (t) => {
    const clean = await report(
      edifactInterchange({
        sender: ['SENDER', '14'],
        receiver: ['RECV', 'ZZZ'],
        ref: 'R1',
        messages: [{ type: 'ORDERS', ref: '1', body: ['BGM+220+PO1+9'] }],
      }),
    );
    const ok = buildAcknowledgement(clean, 'CONTRL', 12, new Date('2026-11-23T12:00:00Z'));
    t.equal(
      ok.text,
      "UNA:+.? '\nUNB+UNOA:3+RECV:ZZZ+SENDER:14+261123:1200+12'\nUNH+1+CONTRL:2:2:UN'\nUCI+R1+SENDER:14+RECV:ZZZ+7'\nUNT+3+1'\nUNZ+1+12'\n",
    );
    const bad = await report(
      edifactInterchange({
        sender: ['SENDER', '14'],
        receiver: ['RECV', 'ZZZ'],
        ref: 'R2',
        unzCount: 3,
        messages: [
          { type: 'ORDERS', ref: '1', body: ['BGM+220+PO1+9'], untCount: 7 },
          { type: 'ORDERS', ref: '2', body: ['BGM+220+P\u0001+9', 'b1d+x'] },
        ],
      }),
    );
    const contrl = buildAcknowledgement(bad, 'CONTRL', 13, new Date()).text;
    t.match(
      contrl,
      /UCI\+R2\+SENDER:14\+RECV:ZZZ\+4\+29'/,
      'UNZ counts wrong: the interchange is rejected, code 29',
    );
    t.match(contrl, /UCM\+1\+ORDERS:D:96A:UN\+4\+29'/, 'UNT counts wrong: code 29');
    t.match(contrl, /UCM\+2\+ORDERS:D:96A:UN\+4'\nUCS\+2'\nUCD\+21\+2'\nUCS\+3\+12'/);
    const read = await report(contrl);
    t.same(read.groups[0]!.sets[0]!.acknowledges, { interchange_control: 'R2', accepted: false });
  },
);

t.test('an interchange that is not EDI cannot be checked', async (t) => {
  t.match(await checkInterchange(streamOf('hello world')), { problem: /not an X12 or EDIFACT/ });
});
