// Covers the names in a message sent by hand: EDI sent as JSON with a file_name holding a control character (U+0000 among them, which PostgreSQL refuses in text), or with from, to or target holding what no record's name can, is refused with 400 naming the field, stores nothing and takes no control number, while the multipart upload makes the same characters `_` in the file name it was given.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { ediParties, tempDir, upload } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const partnerId = await ediParties(server, await tempDir(t));

/** EDI sent as JSON: the one place that names the route that takes it. */
const sendEdiJson = (body: unknown) => server.call('POST', '/api/v1/messages/edi', { body });

const documents = {
  standard: 'x12',
  sets: [{ type: '850', segments: [{ tag: 'BEG', elements: ['00', 'SA', 'PO-1', '', '20261125'] }] }],
};
const messageCount = async () =>
  (await sql<{ n: number }>(server.db.url, 'select count(*)::int as n from message'))[0]!.n;
const numbersTaken = async () =>
  (await server.call('GET', `/api/v1/partners/${partnerId}/control-numbers`)).body.data.control_numbers;

t.test('a JSON send whose file_name holds a control character is refused', async (t) => {
  const before = { messages: await messageCount(), numbers: await numbersTaken() };
  for (const file_name of [
    'po\u0000.edi',
    '\u0000',
    'po\t1.edi',
    'po\n.edi',
    'po\u001f.edi',
    'po\u007f.edi',
  ]) {
    const answer = await sendEdiJson({ from: 'acme', to: 'globex', target: 'out', file_name, documents });
    t.equal(answer.status, 400, `${JSON.stringify(file_name)}: ${answer.raw}`);
    t.same(
      answer.body.error,
      {
        code: 'INVALID_INPUT',
        message: 'Validation failed',
        details: { file_name: 'Must not contain control characters' },
      },
      JSON.stringify(file_name),
    );
  }
  t.same(
    { messages: await messageCount(), numbers: await numbersTaken() },
    before,
    'nothing stored or taken',
  );

  const fine = await sendEdiJson({
    from: 'acme',
    to: 'globex',
    target: 'out',
    file_name: 'po 1 é.edi',
    documents,
  });
  t.equal(fine.status, 201, fine.raw);
  t.equal(fine.body.data.file_name, 'po 1 é.edi', 'other characters are kept');
});

t.test('from, to and target are names: U+0000 in one is refused, naming it', async (t) => {
  const before = { messages: await messageCount(), numbers: await numbersTaken() };
  const send = { from: 'acme', to: 'globex', target: 'out', documents };
  for (const field of ['from', 'to', 'target'] as const) {
    const answer = await sendEdiJson({ ...send, [field]: `${send[field]}\u0000` });
    t.equal(answer.status, 400, `${field}: ${answer.raw}`);
    t.same(answer.body.error, {
      code: 'INVALID_INPUT',
      message: 'Validation failed',
      details: { [field]: 'Use only lower case letters, digits, _ or -' },
    });
  }
  t.same(
    { messages: await messageCount(), numbers: await numbersTaken() },
    before,
    'nothing stored or taken',
  );
});

t.test('a multipart upload makes the same characters `_` in its file name', async (t) => {
  const answer = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'out' },
    { name: 'po\u00001\u007f.edi', content: 'hello' },
  );
  t.equal(answer.status, 201, answer.raw);
  t.equal(answer.body.data.file_name, 'po_1_.edi');
});
