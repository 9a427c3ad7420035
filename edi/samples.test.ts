// Covers real-world interchanges pier did not write (test/fixtures/edi, from node-x12 and pydifact, MIT): their
// envelopes, a clean syntax check, and the acknowledgements built for them; the truncated pydifact order (no UNZ)
// is rejected at interchange level in its CONTRL, and so is the Wikipedia example, whose UNZ names another reference than its UNB.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { readEnvelopeFrom } from './envelope-reader.js';
import { checkInterchange } from './syntax-check.js';
import { buildAcknowledgement } from './acknowledgement.js';

const fixture = (name: string) =>
  createReadStream(path.join(import.meta.dirname, '../test/fixtures/edi', name));
const at = new Date('2026-11-23T12:00:00Z');

t.test('node-x12 850: an 00400 purchase order with numeric qualifiers', async (t) => {
  const reading = await readEnvelopeFrom(fixture('node-x12-850.edi'));
  t.match(reading, {
    kind: 'envelope',
    envelope: {
      standard: 'x12',
      version: '00400',
      sender: { qualifier: '12', id: '4405197800' },
      receiver: { qualifier: '01', id: '999999999' },
      interchange_control: '000003438',
      group_controls: ['1421'],
      document_types: ['850'],
    },
  });
  const report = await checkInterchange(fixture('node-x12-850.edi'));
  if ('problem' in report) return t.fail(report.problem);
  t.same(report.notes, [], 'no envelope problem (the file has no final newline)');
  const ack = buildAcknowledgement(report, '997', 9, at);
  t.ok(ack.accepts_all);
  t.match(ack.text, /^ISA\*00\* {10}\*00\* {10}\*01\*999999999 {6}\*12\*4405197800 {5}\*/);
  t.match(ack.text, /AK1\*PO\*1421~\nAK2\*850\*000000010~\nAK5\*A~\nAK9\*A\*1\*1\*1~/);
});

t.test('node-x12 855: a purchase order acknowledgement in 00401', async (t) => {
  const report = await checkInterchange(fixture('node-x12-855.edi'));
  if ('problem' in report) return t.fail(report.problem);
  t.same(report.envelope.document_types, ['855']);
  t.match(
    buildAcknowledgement(report, '999', 3, at).text,
    /AK1\*PR\*5\*004010~\nAK2\*855\*0005~\nIK5\*A~\nAK9\*A\*1\*1\*1~/,
  );
});

t.test(
  'pydifact wikipedia_de: UNOC without qualifiers; its UNZ names another reference than its UNB, code 28',
  async (t) => {
    const report = await checkInterchange(fixture('pydifact-wikipedia-de.edi'));
    if ('problem' in report) return t.fail(report.problem);
    t.match(report.envelope, {
      standard: 'edifact',
      version: 'UNOC:3',
      sender: { qualifier: '', id: 'Senderkennung' },
      receiver: { qualifier: '', id: 'Empfaengerkennung' },
      interchange_control: '1',
      document_types: ['ORDERS'],
    });
    // UNB 0020 is 1 (1234567 is the application reference, 0026); UNZ names 1234567.
    t.same(report.errors, ['28']);
    t.same(report.groups[0]!.sets[0]!.errors, [], 'the message itself is well formed');
    t.match(
      buildAcknowledgement(report, 'CONTRL', 4, at).text,
      /UCI\+1\+Senderkennung\+Empfaengerkennung\+4\+28'/,
    );
  },
);

t.test('pydifact order: syntax 4 with a decimal comma, cut off before UNZ', async (t) => {
  const report = await checkInterchange(fixture('pydifact-order.edi'));
  if ('problem' in report) return t.fail(report.problem);
  t.match(report.envelope, {
    version: 'UNOA:4',
    sender: { qualifier: '8', id: '12345678' },
    interchange_control: '807',
  });
  t.same(report.errors, ['13'], 'UNZ missing');
  t.same(report.groups[0]!.sets[0]!.errors, [], 'the message itself is complete');
  const contrl = buildAcknowledgement(report, 'CONTRL', 5, at).text;
  t.match(contrl, /^UNA:\+\.\?\*'\n/, 'syntax 4: the repetition separator in the UNA');
  t.match(contrl, /UNH\+1\+CONTRL:4:1:UN'\nUCI\+807\+12345678:8\+WBDZDD:ZZ\+4\+13'/);
});
