// Covers GET /messages/{id}/payload as EDI JSON: format=json and Accept: application/json give the interchange's JSON form (small ones from memory, a 9 MiB one streamed after a checking pass), which writes back to the stored bytes; an X12 interchange with a space before each line break is given too; a payload that is not EDI, or EDI pier cannot translate, is 406 NOT_ACCEPTABLE saying why; without either the bytes come as before.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { jsonTextToEdi } from '../../edi/json/translate.js';
import { must, parties, tempDir, upload, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
await parties(server);
await must(server, '/plugins/configs?type=file-writer', { name: 'out', directory: path.join(dir, 'out') });

const corpus = (file: string) => readFileSync(path.join(import.meta.dirname, '../fixtures/edi-json', file));

async function sent(name: string, content: Buffer | string): Promise<string> {
  const made = await upload(server, { from: 'acme', to: 'globex', target: 'out' }, { name, content });
  t.equal(made.status, 201, `${name} sent`);
  await waitForMessage(server, made.body.data.id, (m) => m.status === 'Delivered', `${name} delivered`);
  return made.body.data.id as string;
}

t.test('format=json and Accept: application/json give the JSON form', async (t) => {
  const bytes = corpus('edifact-orders-una-lf-release.edi');
  const id = await sent('orders.edi', bytes);
  const byQuery = await server.call('GET', `/api/v1/messages/${id}/payload?format=json`);
  t.equal(byQuery.status, 200);
  t.match(byQuery.headers['content-type'], /^application\/json/);
  t.match(byQuery.body, {
    format: 'pier-edi-json/1',
    standard: 'edifact',
    una: "UNA:+.? '",
    messages: [{ header: { tag: 'UNH', elements: ['1', ['ORDERS', 'D', '96A', 'UN', 'EAN008']] } }],
  });
  const bgm = byQuery.body.messages[0].segments[0];
  t.same(bgm.meanings, { 'C002.1001': 'Order', BGM03: 'Original' }, 'annotated');
  t.ok(jsonTextToEdi(byQuery.raw).equals(bytes), 'the JSON writes back to the stored bytes');
  const byAccept = await server.call('GET', `/api/v1/messages/${id}/payload`, {
    headers: { accept: 'application/json' },
  });
  t.equal(byAccept.status, 200);
  t.equal(byAccept.raw, byQuery.raw);
  const raw = await server.call('GET', `/api/v1/messages/${id}/payload`);
  t.equal(raw.headers['content-type'], 'application/octet-stream');
  t.ok(raw.bytes.equals(bytes), 'without either: the bytes as stored');
  const rawAsked = await server.call('GET', `/api/v1/messages/${id}/payload?format=raw`, {
    headers: { accept: 'application/json' },
  });
  t.ok(rawAsked.bytes.equals(bytes), 'format=raw wins over Accept');
});

t.test('an X12 interchange with a space before each line break is given as JSON', async (t) => {
  // The layout of pyx12's example834_5010.txt, which was refused for the tag " \nGS".
  const bytes = readFileSync(
    path.join(import.meta.dirname, '../fixtures/edi-normalised/x12-834-space-before-line-break.edi'),
  );
  const id = await sent('enrolment.edi', bytes);
  const answer = await server.call('GET', `/api/v1/messages/${id}/payload?format=json`);
  t.equal(answer.status, 200, answer.raw.slice(0, 300));
  t.match(answer.body, {
    standard: 'x12',
    line_break: '\n',
    groups: [{ header: { tag: 'GS' }, transactions: [{ header: { tag: 'ST', elements: ['834'] } }] }],
  });
  const shown = await server.call('GET', `/api/v1/messages/${id}`);
  t.match(
    shown.body.data.protocols,
    { edi: { document_types: ['834'] } },
    'its envelope read, every set named',
  );
});

t.test('the OpenAPI document describes the JSON form and the 406', async (t) => {
  const answer = await server.call('GET', '/openapi.yaml');
  t.equal(answer.status, 200);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is asserted field by field
  const doc = { body: parse(answer.raw) as any };
  t.match(doc.body.components.schemas.EdiJson, {
    type: 'object',
    required: ['format', 'standard', 'delimiters'],
  });
  const payload = doc.body.paths['/messages/{id}/payload'].get;
  t.same(payload.responses['200'].content['application/json'], {
    schema: { $ref: '#/components/schemas/EdiJson' },
  });
  t.ok(payload.responses['406'], 'the 406 is documented');
});

t.test('a payload that is not EDI is 406 NOT_ACCEPTABLE, saying why', async (t) => {
  const id = await sent('prices.csv', 'sku;price\nA-1;4.25\n');
  const answer = await server.call('GET', `/api/v1/messages/${id}/payload?format=json`);
  t.equal(answer.status, 406);
  t.same(answer.body, {
    data: null,
    error: {
      code: 'NOT_ACCEPTABLE',
      message: `The unpacked payload of message ${id} cannot be given as JSON: the document is not an X12 or EDIFACT interchange: it starts with "sku;price\\nA-1;4.25\\n", not ISA, UNA or UNB`,
      details: { stage: 'unpacked' },
    },
  });
});

t.test('EDI that cannot be translated is 406 naming the segment', async (t) => {
  const cut = corpus('x12-850-00401-tilde-lf.edi')
    .toString('latin1')
    .replace(/GE\*.*$/s, '');
  const id = await sent('cut.edi', cut);
  const answer = await server.call('GET', `/api/v1/messages/${id}/payload?format=json`);
  t.equal(answer.status, 406);
  t.equal(answer.body.error.code, 'NOT_ACCEPTABLE');
  t.match(answer.body.error.message, /cannot be given as JSON: the interchange ends without its GE trailer$/);
  t.same(answer.body.error.details, { stage: 'unpacked', tag: 'GE' });
});

t.test('a 9 MiB interchange is streamed as JSON', async (t) => {
  const text = corpus('x12-850-00401-tilde-lf.edi').toString('latin1');
  const segments = text.split('~\n');
  const body = segments.slice(3, -4);
  const sets: string[] = [];
  let size = 0;
  for (let n = 1; size < 9 * 1024 * 1024; n++) {
    const control = String(n).padStart(9, '0');
    const set = [`ST*850*${control}`, ...body, `SE*${body.length + 2}*${control}`].join('~\n') + '~\n';
    sets.push(set);
    size += set.length;
  }
  const big = Buffer.from(
    `${segments.slice(0, 2).join('~\n')}~\n${sets.join('')}GE*${sets.length}*1001~\nIEA*1*000000101~\n`,
    'latin1',
  );
  const id = await sent('big.edi', big);
  const answer = await server.call('GET', `/api/v1/messages/${id}/payload?format=json`);
  t.equal(answer.status, 200);
  t.equal(answer.headers['content-length'], undefined, 'streamed, without a length');
  t.ok(jsonTextToEdi(answer.raw).equals(big), 'the JSON writes back to the stored bytes');
});
