// Covers a partner's envelope settings (edi_envelope): the defaults a partner gets and shows, settings refused per field with the setting named (delimiters that repeat, a letter as a delimiter, a version of the wrong form) and nothing changed, and interchanges built from documents written with the partner's version, delimiters, test indicator and acknowledgement request, each of which a request may override, and a request's delimiters refused when they clash with the partner's or are letters.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { ordersAsJson } from '../helpers/edi.js';
import { must, tempDir, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
await must(server, '/organizations', { name: 'acme', interchange_ids: [{ qualifier: 'ZZ', id: 'ACME' }] });
await must(server, '/plugins/configs?type=file-writer', {
  name: 'out',
  directory: dir,
  path_pattern: '{filename}',
});

const defaults = {
  x12_version: '00401',
  x12_element: '*',
  x12_component: '>',
  x12_repetition: '',
  x12_segment: '~',
  edifact_syntax: 'UNOC:3',
  edifact_element: '+',
  edifact_component: ':',
  edifact_repetition: '',
  edifact_release: '?',
  edifact_segment: "'",
  test: false,
  acknowledgement_requested: false,
};

t.test('a partner gets the defaults, and settings refused name the setting and change nothing', async (t) => {
  const made = await must(server, '/partners', { name: 'initech' });
  t.same(made.body.data.edi_envelope, defaults, 'the defaults, written out');
  const id = made.body.data.id as number;
  const refused = async (edi_envelope: unknown, message: string) => {
    const answer = await server.call('PUT', `/api/v1/partners/${id}`, { body: { edi_envelope } });
    t.equal(answer.status, 400, answer.raw);
    t.same(answer.body.error.details, { edi_envelope: message });
  };
  await refused(
    { x12_element: '|', x12_segment: '|' },
    'x12_segment: | is x12_element already; each delimiter must differ',
  );
  await refused(
    { edifact_component: 'A' },
    'edifact_component (EDIFACT component separator): not a letter, digit, space or control character',
  );
  await refused({ x12_version: '4010' }, 'x12_version (ISA12): five digits, such as 00401 or 00501');
  await refused(
    { edifact_syntax: 'UNOC' },
    'edifact_syntax (UNB 0001:0002): a syntax identifier and version, such as UNOC:3 or UNOA:2',
  );
  await refused({ x12_delimiter: '*' }, 'Unknown property: x12_delimiter');
  const created = await server.call('POST', '/api/v1/partners', {
    body: { name: 'refused', edi_envelope: { edifact_release: '+' } },
  });
  t.equal(created.status, 400);
  t.same(created.body.error.details, {
    edi_envelope: 'edifact_release: + is edifact_element already; each delimiter must differ',
  });
  const after = await server.call('GET', `/api/v1/partners/${id}`);
  t.same(after.body.data.edi_envelope, defaults, 'nothing changed');
  t.equal((await server.call('GET', '/api/v1/partners?q=refused')).body.data.partners.length, 0);
});

t.test("documents are put in envelopes with the partner's settings, unless the request says", async (t) => {
  await must(server, '/partners', {
    name: 'globex',
    interchange_ids: [{ qualifier: '01', id: '999999999' }],
    edi_envelope: {
      x12_version: '00501',
      x12_element: '|',
      x12_component: ':',
      x12_segment: '!',
      edifact_syntax: 'UNOA:2',
      edifact_element: '/',
      test: true,
      acknowledgement_requested: true,
    },
  });
  const po = { type: '850', segments: [{ tag: 'BEG', elements: ['00', 'SA', 'PO-1', '', '20261125'] }] };
  const x12 = await server.call('POST', '/api/v1/messages/edi', {
    body: { from: 'acme', to: 'globex', target: 'out', documents: { standard: 'x12', sets: [po] } },
  });
  t.equal(x12.status, 201, x12.raw);
  await waitForMessage(server, x12.body.data.id, (m) => m.status === 'Delivered', 'delivered');
  const written = await readFile(path.join(dir, x12.body.data.file_name), 'latin1');
  t.match(
    written,
    /^ISA\|00\|.{10}\|00\|.{10}\|ZZ\|ACME {11}\|01\|999999999 {6}\|\d{6}\|\d{4}\|\^\|00501\|000000001\|1\|T\|:!\n/,
  );
  t.match(written, /\nGS\|PO\|ACME\|999999999\|\d{8}\|\d{4}\|1\|X\|005010!\nST\|850\|0001\|005010!\n/);

  const overridden = await server.call('POST', '/api/v1/messages/edi', {
    body: {
      from: 'acme',
      to: 'globex',
      target: 'out',
      documents: {
        standard: 'x12',
        version: '00401',
        test: false,
        acknowledgement_requested: false,
        delimiters: { element: '*' },
        sets: [po],
      },
    },
  });
  t.equal(overridden.status, 201, overridden.raw);
  await waitForMessage(server, overridden.body.data.id, (m) => m.status === 'Delivered', 'delivered');
  t.match(
    await readFile(path.join(dir, overridden.body.data.file_name), 'latin1'),
    /^ISA\*00\*.{10}\*00\*.{10}\*ZZ\*ACME {11}\*01\*999999999 {6}\*\d{6}\*\d{4}\*U\*00401\*000000002\*0\*P\*:!\n/,
    "the request's version, indicators and element separator; the partner's other delimiters",
  );

  const clash = await server.call('POST', '/api/v1/messages/edi', {
    body: {
      from: 'acme',
      to: 'globex',
      target: 'out',
      documents: { standard: 'x12', delimiters: { component: '|' }, sets: [po] },
    },
  });
  t.equal(clash.status, 400);
  t.same(clash.body.error.details, {
    documents:
      "delimiters.component: | is the element delimiter already (the partner's edi_envelope or this request); each delimiter must differ",
  });
  const letter = await server.call('POST', '/api/v1/messages/edi', {
    body: {
      from: 'acme',
      to: 'globex',
      target: 'out',
      documents: { standard: 'x12', delimiters: { segment: 'S' }, sets: [po] },
    },
  });
  t.equal(letter.status, 400);
  t.same(letter.body.error.details, {
    documents: 'delimiters.segment: one character that is not a letter, digit or space',
  });

  const edifact = await server.call('POST', '/api/v1/messages/edi', {
    body: { from: 'acme', to: 'globex', target: 'out', documents: ordersAsJson },
  });
  t.equal(edifact.status, 201, edifact.raw);
  await waitForMessage(server, edifact.body.data.id, (m) => m.status === 'Delivered', 'delivered');
  t.match(
    await readFile(path.join(dir, edifact.body.data.file_name), 'latin1'),
    /^UNA:\/\.\? 'UNB\/UNOA:2\/ACME:ZZ\/999999999:01\/\d{6}:\d{4}\/3\/\/\/\/1\/\/1'UNH\/3\/ORDERS:D:96A:UN'/,
    'a UNA for the partner’s element separator, its syntax, acknowledgement requested and test',
  );
});
