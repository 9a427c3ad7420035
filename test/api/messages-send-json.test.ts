// Covers POST /messages/edi (EDI as JSON): documents without envelopes built into an interchange from the parties' interchange ids with the partner's next control numbers taken in the acceptance's transaction (the upload's audit entry and the first history line name them), a whole interchange in its JSON form sent byte for byte, refusals naming the segment and element that store nothing and take no number, an acceptance failing after the numbers were taken (a full counter) giving back every number it took, and 415 naming application/json for any other Content-Type, multipart included.
import { readFile, readdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ediToDocument } from '../../edi/json/translate.js';
import { sql } from '../helpers/database.js';
import { ordersAsJson } from '../helpers/edi.js';
import { ediParties, tempDir, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
const partnerId = await ediParties(server, dir);

const po = (number: string) => ({
  type: '850',
  segments: [
    { tag: 'BEG', elements: ['00', 'SA', number, '', '20261125'] },
    { tag: 'PO1', elements: ['1', '120', 'EA', '4.25', 'PE', 'VP', 'ACME-100'] },
  ],
});
const send = (body: unknown) => server.call('POST', '/api/v1/messages/edi', { body });
const messageCount = async () =>
  (await sql(server.db.url, 'select count(*)::int as n from message'))[0]!.n as number;

t.test("documents without envelopes are built with the partner's next control numbers", async (t) => {
  const first = await send({
    from: 'acme',
    to: 'globex',
    target: 'out',
    documents: { standard: 'x12', test: true, sets: [po('PO-1'), po('PO-2')] },
  });
  t.equal(first.status, 201, first.raw);
  t.equal(first.body.data.file_name, '000000001.edi');
  await waitForMessage(server, first.body.data.id, (m) => m.status === 'Delivered', 'delivered');
  const written = await readFile(path.join(dir, '000000001.edi'), 'latin1');
  t.match(
    written,
    /^ISA\*00\* {10}\*00\* {10}\*ZZ\*ACME {11}\*01\*999999999 {6}\*\d{6}\*\d{4}\*U\*00401\*000000001\*0\*T\*>~\n/,
  );
  t.match(
    written,
    /\nST\*850\*0001~\nBEG\*00\*SA\*PO-1\*\*20261125~\nPO1\*1\*120\*EA\*4\.25\*PE\*VP\*ACME-100~\nSE\*4\*0001~\nST\*850\*0002~/,
  );
  t.match(written, /\nGE\*2\*1~\nIEA\*1\*000000001~\n$/);
  const second = await send({
    from: 'acme',
    to: 'globex',
    target: 'out',
    documents: { standard: 'x12', sets: [po('PO-3')] },
  });
  t.equal(second.body.data.file_name, '000000002.edi', 'the next interchange number');
  const counters = await server.call('GET', `/api/v1/partners/${partnerId}/control-numbers`);
  t.match(counters.body.data.control_numbers, [
    { level: 'group', last_value: 2 },
    { level: 'interchange', last_value: 2 },
    { level: 'set', last_value: 3 },
  ]);
  const audit = await server.call('GET', `/api/v1/audit?kind=message&action=upload`);
  const sent = audit.body.data.events.find((e: { record_id: string }) => e.record_id === second.body.data.id);
  t.same(
    sent.changes.find((c: { field: string }) => c.field === 'control_numbers'),
    { field: 'control_numbers', new: 'interchange 2, group 2, set 3' },
    'the audit entry of the upload names the numbers it took',
  );
  t.equal(
    second.body.data.history[0].text,
    'Sent as EDI JSON by sa:tester; control numbers interchange 2, group 2, set 3',
  );
});

t.test(
  "EDIFACT documents get a UNB from the ids; the partner's counters go on (3rd interchange, 4th set)",
  async (t) => {
    const made = await send({ from: 'acme', to: 'globex', target: 'out', documents: ordersAsJson });
    t.equal(made.status, 201, made.raw);
    await waitForMessage(server, made.body.data.id, (m) => m.status === 'Delivered', 'delivered');
    t.match(
      await readFile(path.join(dir, made.body.data.file_name), 'latin1'),
      /^UNB\+UNOC:3\+ACME:ZZ\+999999999:01\+\d{6}:\d{4}\+3'UNH\+4\+ORDERS:D:96A:UN'BGM\+220\+PO-9\+9'UNT\+3\+4'UNZ\+1\+3'$/,
    );
  },
);

t.test('a whole interchange in its JSON form is sent byte for byte', async (t) => {
  const bytes = readFileSync(
    path.join(import.meta.dirname, '../fixtures/edi-json/x12-850-00401-tilde-lf.edi'),
  );
  const made = await send({
    from: 'acme',
    to: 'globex',
    target: 'out',
    file_name: 'as-given.edi',
    interchange: ediToDocument(bytes),
  });
  t.equal(made.status, 201, made.raw);
  await waitForMessage(server, made.body.data.id, (m) => m.status === 'Delivered', 'delivered');
  t.ok((await readFile(path.join(dir, 'as-given.edi'))).equals(bytes));
});

t.test('refusals name the segment and element, store nothing and take no number', async (t) => {
  const before = { messages: await messageCount(), files: (await readdir(dir)).length };
  const star = await send({
    from: 'acme',
    to: 'globex',
    target: 'out',
    documents: { standard: 'x12', sets: [po('PO*4')] },
  });
  t.equal(star.status, 400);
  t.same(star.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: {
      documents:
        'segment 4 (BEG), element 3: the value holds the separator "*", which X12 cannot carry in data',
      segment: 4,
      tag: 'BEG',
      element: 3,
    },
  });
  const control = await send({
    from: 'acme',
    to: 'globex',
    target: 'out',
    documents: { standard: 'x12', sets: [po('PO\u00075')] },
  });
  t.equal(control.status, 400);
  t.equal(
    control.body.error.details.documents,
    'set 850 0001, segment 2 (BEG), element 3: syntax error code 6 in "PO\\u00075"',
  );
  const broken = ediToDocument(
    readFileSync(path.join(import.meta.dirname, '../fixtures/edi-json/x12-997-two-groups.edi')),
  );
  broken.groups![0]!.transactions![0]!.trailer.elements[0] = '9';
  const wrongCount = await send({ from: 'acme', to: 'globex', target: 'out', interchange: broken });
  t.equal(wrongCount.status, 400);
  t.equal(wrongCount.body.error.details.interchange, 'set 997 0001: syntax error codes 4');
  const both = await send({
    from: 'acme',
    to: 'globex',
    documents: { standard: 'x12', sets: [po('x')] },
    interchange: broken,
  });
  t.same(both.body.error.details, {
    _form: 'Give interchange (a whole interchange) or documents (without envelopes), one of them',
  });
  t.same({ messages: await messageCount(), files: (await readdir(dir)).length }, before, 'nothing stored');
  const counters = await server.call('GET', `/api/v1/partners/${partnerId}/control-numbers`);
  t.match(
    counters.body.data.control_numbers,
    [
      { level: 'group', last_value: 2 },
      { level: 'interchange', last_value: 3 },
    ],
    'no number taken',
  );
  for (const type of ['text/plain', 'multipart/form-data; boundary=b']) {
    const other = await server.call('POST', '/api/v1/messages/edi', {
      payload: 'x',
      headers: { 'content-type': type, 'x-requested-with': 'test' },
    });
    t.equal(other.status, 415, type);
    t.same(other.body.error, {
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Content-Type must be application/json',
    });
    t.equal(other.headers.accept, 'application/json', type);
  }
  t.equal(await messageCount(), before.messages, 'nothing stored');
  const read = await server.call('GET', '/api/v1/messages/edi');
  t.equal(read.status, 400, 'the path is no message id');
  t.ok(read.body.error.details.id, 'refused on id');
});

t.test('an acceptance that fails after the numbers were taken gives them all back', async (t) => {
  const numbers = async () =>
    (
      (await server.call('GET', `/api/v1/partners/${partnerId}/control-numbers`)).body.data
        .control_numbers as { direction: string; level: string; last_value: number }[]
    )
      .filter((c) => c.direction === 'outbound')
      .map((c) => [c.level, c.last_value]);
  const before = await numbers();
  const messages = await messageCount();
  // The set counter is full: the statement takes the interchange and group numbers with it,
  // then the build fails, inside the acceptance's transaction.
  const full = await server.call('PUT', `/api/v1/partners/${partnerId}/control-numbers/outbound/set`, {
    body: { last_value: 999_999_999 },
  });
  t.equal(full.status, 200, full.raw);
  const refused = await send({
    from: 'acme',
    to: 'globex',
    target: 'out',
    documents: { standard: 'x12', sets: [po('PO-10')] },
  });
  t.equal(refused.status, 409, refused.raw);
  t.match(refused.body.error, { code: 'CONFLICT', details: { level: 'set' } });
  t.same(
    await numbers(),
    before.map(([level, n]) => [level, level === 'set' ? 999_999_999 : n]),
    'the interchange and group numbers taken with it came back',
  );
  t.equal(await messageCount(), messages, 'no message stored');
});
