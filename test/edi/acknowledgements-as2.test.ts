// Covers EDI routing and functional acknowledgements between two piers over AS2: pier A sends X12 and EDIFACT
// interchanges to pier B, which resolves the parties from the envelope's interchange ids, routes by document
// type, and sends a 997 back on its normal route to A (an as2-sender); A matches it to the interchange it sent and
// shows acknowledged or rejected; an EDIFACT interchange B does not acknowledge turns overdue at A with an alert.
// The messages list filters by envelope fields on both sides.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { makeFixtures } from '../helpers/certificates.js';
import {
  organization,
  partner,
  startReceiver,
  startSender,
  storeCertificate,
  syncSigned,
} from '../helpers/as2.js';
import { must, sendByHand, tempDir, waitForMessage, waitForMessages, type Message } from '../helpers/flow.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { edifactInterchange, purchaseOrder, x12Interchange } from '../helpers/edi.js';
import { openDatabase } from '../../storage/db.js';
import { inTx } from '../../storage/sql.js';
import { acknowledgementsOverdue } from '../../flow/commands/edi-acks.js';

const a = await startTestServer(t);
const b = await startTestServer(t);
const f = makeFixtures(t);
f.selfSigned('pier', '/O=pier/CN=pier.example');
const dir = await tempDir(t);
const orders = path.join(dir, 'orders');
const acks = path.join(dir, 'acks');

const put = async (server: TestServer, url: string, body: unknown) => {
  const answer = await server.call('PUT', `/api/v1${url}`, { body });
  if (answer.status !== 200) throw new Error(`PUT ${url} answered ${answer.status}: ${answer.raw}`);
  return answer.body.data;
};

// Pier A: organization acme (ZZ:ACME) sends to partner shopco (ZZ:SHOPCO), which must acknowledge within an hour.
const certA = await storeCertificate(a, f, 'pier');
const urlA = await startReceiver(a, 'as2in');
await startSender(a, 'out');
await must(a, '/plugins/configs?type=file-writer', { name: 'acks', directory: acks });
// Pier B: organization shopco receives from partner acme, to which it sends a 997 for every X12 interchange.
const certB = await storeCertificate(b, f, 'pier');
const urlB = await startReceiver(b, 'as2in');
await startSender(b, 'out');
await must(b, '/plugins/configs?type=file-writer', { name: 'orders', directory: orders });

const acmeA = await organization(a, 'acme', 'ACME', certA, urlA);
const shopcoA = await partner(a, 'shopco', 'SHOPCO', urlB, certA, syncSigned);
await put(a, `/organizations/${acmeA}`, { interchange_ids: [{ qualifier: 'ZZ', id: 'ACME' }] });
await put(a, `/partners/${shopcoA}`, {
  interchange_ids: [{ qualifier: 'ZZ', id: 'SHOPCO' }],
  acknowledgement_due_hours: 1,
});
const shopcoB = await organization(b, 'shopco', 'SHOPCO', certB, urlB);
const acmeB = await partner(b, 'acme', 'ACME', urlA, certB, syncSigned);
await put(b, `/organizations/${shopcoB}`, { interchange_ids: [{ qualifier: 'ZZ', id: 'SHOPCO' }] });
const acmeOnB = await put(b, `/partners/${acmeB}`, {
  // Any qualifier: the EDIFACT interchange below names ACME with ZZ as well, X12 with ZZ.
  interchange_ids: [{ qualifier: '', id: 'ACME' }],
  x12_acknowledgement: '997',
  edifact_acknowledgement: 'none',
});

// Routes. B: received orders by document type; its acknowledgements to acme over AS2. A: acknowledgements received to a file.
await must(b, '/routes', {
  source_plugin: 'as2in',
  from: 'acme',
  to: 'shopco',
  document_type: '850',
  target_plugin: 'orders',
});
await must(b, '/routes', {
  source_plugin: 'as2in',
  from: 'acme',
  to: 'shopco',
  document_type: 'ORDERS',
  target_plugin: 'orders',
});
await must(b, '/routes', {
  source_plugin: 'as2in',
  from: 'shopco',
  to: 'acme',
  document_type: '997',
  target_plugin: 'out',
});
await must(a, '/routes', { source_plugin: 'as2in', from: 'shopco', to: 'acme', target_plugin: 'acks' });

/** protocols.edi as the API shows it (api/resources/messages/service.ts). */
interface EdiView {
  document_types: string[];
  acknowledgement: { status: string | null; due_at: string | null; message_id: string };
  [field: string]: unknown;
}
const edi = (m: Message) => (m.protocols as { edi?: EdiView }).edi;
const ackStatus = (m: Message) => edi(m)?.acknowledgement?.status as string | undefined;

t.test('partners and organizations show their interchange ids and acknowledgement settings', async (t) => {
  t.match(acmeOnB, {
    name: 'acme',
    interchange_ids: [{ qualifier: '', id: 'ACME' }],
    x12_acknowledgement: '997',
    edifact_acknowledgement: 'none',
    acknowledgement_due_hours: 0,
  });
  const taken = await b.call('POST', '/api/v1/partners', {
    body: { name: 'acme-too', interchange_ids: [{ qualifier: 'ZZ', id: 'ACME' }] },
  });
  t.equal(taken.status, 409);
  t.same(taken.body.error, {
    code: 'CONFLICT',
    message: 'Interchange id ZZ:ACME is an id of partner acme',
    details: { interchange_ids: 'Interchange id ZZ:ACME is an id of partner acme' },
  });
  const bad = await b.call('PUT', `/api/v1/partners/${acmeB}`, {
    body: { x12_acknowledgement: '998', interchange_ids: [{ qualifier: 'ZZ', id: ' PADDED' }] },
  });
  t.equal(bad.status, 400);
  t.match(bad.body.error.details, {
    x12_acknowledgement: 'Must be one of: 997, 999, none',
    interchange_ids: 'Must not start or end with a space or contain control characters',
  });
  const org = await a.call('PUT', `/api/v1/organizations/${acmeA}`, { body: { x12_acknowledgement: '997' } });
  t.equal(org.status, 400, 'acknowledgement settings are a partner’s');
  t.match(org.body.error.details, { x12_acknowledgement: 'Unknown property' });
});

t.test(
  'an 850 goes A → B by AS2, is routed by its envelope, and B’s 997 comes back and acknowledges it at A',
  async (t) => {
    const po = purchaseOrder(1001, 'ACME', 'SHOPCO', 3);
    const sent = await sendByHand(
      a,
      { from: 'acme', to: 'shopco', target: 'out' },
      { name: 'po-1001.edi', content: po },
    );
    t.equal(sent.status, 'Delivered');
    t.match(edi(sent), {
      standard: 'x12',
      sender: { qualifier: 'ZZ', id: 'ACME' },
      receiver: { qualifier: 'ZZ', id: 'SHOPCO' },
      interchange_control: '000001001',
      group_controls: ['1001'],
      document_types: ['850'],
    });

    const [received] = await waitForMessages(
      b,
      'document_type=850',
      (l) => l.length === 1 && l[0]!.status === 'Delivered',
      'the 850 at B',
    );
    t.match(received, { direction: 'inbound', from: 'acme', to: 'shopco', source_name: 'as2in' });
    t.equal(received!.deliveries[0]!.target, 'orders', 'the route naming document type 850');
    t.match(
      received!.history[0]!.text,
      /by its X12 envelope, sender ZZ:ACME is partner acme, receiver ZZ:SHOPCO is organization shopco/,
    );
    t.equal(await readFile(path.join(orders, 'acme', 'po-1001.edi'), 'utf8'), po);

    const acknowledged = await waitForMessage(
      b,
      received!.id,
      (m) => ackStatus(m) === 'sent',
      'B acknowledged it',
      30_000,
    );
    const ackId = edi(acknowledged)!.acknowledgement.message_id as string;
    const ackAtB = await waitForMessage(
      b,
      ackId,
      (m) => m.status === 'Delivered',
      'B’s 997 delivered to A',
      30_000,
    );
    t.match(ackAtB, {
      direction: 'outbound',
      from: 'shopco',
      to: 'acme',
      source_type: 'edi',
      source_name: 'acknowledgements',
    });
    t.same(edi(ackAtB)!.document_types, ['997']);
    t.equal(ackAtB.deliveries[0]!.target, 'out', 'carried by the route to acme');

    const done = await waitForMessage(
      a,
      sent.id,
      (m) => ackStatus(m) === 'acknowledged',
      'A matched the 997',
      30_000,
    );
    const ackAtA = await waitForMessage(
      a,
      edi(done)!.acknowledgement.message_id,
      (m) => m.status === 'Delivered',
      'the 997 at A',
    );
    t.match(ackAtA, { direction: 'inbound', from: 'shopco', to: 'acme' });
    const written = await readFile(
      path.join(acks, 'shopco', (await readdir(path.join(acks, 'shopco')))[0]!),
      'latin1',
    );
    t.match(written, /ST\*997\*0001~\nAK1\*PO\*1001~\nAK2\*850\*0001~\nAK5\*A~\nAK9\*A\*1\*1\*1~/);

    const listed = await a.call(
      'GET',
      '/api/v1/messages?acknowledgement=acknowledged&edi_receiver=SHOPCO&edi_control=1001',
    );
    t.same(
      listed.body.data.messages.map((m: Message) => m.id),
      [sent.id],
      'filtered by envelope fields',
    );
    const none = await a.call('GET', '/api/v1/messages?document_type=856');
    t.equal(none.body.data.total, 0);
    const wrong = await a.call('GET', '/api/v1/messages?document_type=8500&acknowledgement=late');
    t.equal(wrong.status, 400);
    t.same(Object.keys(wrong.body.error.details).sort(), ['acknowledgement', 'document_type']);
  },
);

t.test('an interchange with syntax errors is rejected by B’s 997 and shows rejected at A', async (t) => {
  const broken = x12Interchange({
    sender: ['ZZ', 'ACME'],
    receiver: ['ZZ', 'SHOPCO'],
    control: 1002,
    groups: [
      {
        functionalId: 'PO',
        control: '1002',
        sets: [{ type: '850', control: '0001', body: ['BEG*00*SA*PO2**20261123'], seCount: 9 }],
      },
    ],
  });
  const sent = await sendByHand(
    a,
    { from: 'acme', to: 'shopco', target: 'out' },
    { name: 'po-1002.edi', content: broken },
  );
  const done = await waitForMessage(
    a,
    sent.id,
    (m) => ackStatus(m) === 'rejected',
    'A saw the rejection',
    45_000,
  );
  t.equal(ackStatus(done), 'rejected');
  const ack = await a.call('GET', `/api/v1/messages/${edi(done)!.acknowledgement.message_id}/payload`);
  t.match(ack.raw, /AK2\*850\*0001~\nAK5\*R\*4~\nAK9\*R\*1\*1\*0~/, 'AK5 code 4: the segment count is wrong');
});

t.test('an interchange the partner does not acknowledge in time turns overdue, with an alert', async (t) => {
  const orders96 = edifactInterchange({
    sender: ['ACME', 'ZZ'],
    receiver: ['SHOPCO', 'ZZ'],
    ref: 'EF1',
    messages: [{ type: 'ORDERS', ref: '1', body: ['BGM+220+PO3+9'] }],
  });
  const sent = await sendByHand(
    a,
    { from: 'acme', to: 'shopco', target: 'out' },
    { name: 'orders-ef1.edi', content: orders96 },
  );
  const expected = await waitForMessage(
    a,
    sent.id,
    (m) => ackStatus(m) === 'expected',
    'awaited at A',
    30_000,
  );
  const due = new Date(edi(expected)!.acknowledgement.due_at!);
  t.ok(
    Math.abs(due.getTime() - new Date(sent.created_at).getTime() - 3600_000) < 1000,
    'due an hour after it was sent',
  );
  await waitForMessages(
    b,
    'document_type=ORDERS',
    (l) => l.length === 1 && l[0]!.status === 'Delivered',
    'at B',
  );
  const orm = await openDatabase(a.db.url, { poolMax: 1 });
  t.teardown(() => orm.close());
  const marked = await inTx(orm, (tx) => acknowledgementsOverdue(tx, new Date(due.getTime() + 1000)));
  t.same(marked, [sent.id]);
  const late = await a.call('GET', `/api/v1/messages/${sent.id}`);
  t.equal(ackStatus(late.body.data), 'overdue');
  // Raised in the statement's transaction; the notification log has rows only for configured notifiers.
  const alerts = await orm.em.getConnection().execute<
    {
      code: string;
      severity: string;
      subject_kind: string;
      subject_id: string;
      summary: string;
      link: string;
    }[]
  >(`select code, severity, subject_kind, subject_id, summary, link from alert where code = 'acknowledgement_overdue'`);
  t.equal(alerts.length, 1);
  t.match(alerts[0], {
    code: 'acknowledgement_overdue',
    severity: 'warning',
    subject_kind: 'message',
    subject_id: sent.id,
    summary: new RegExp(
      `Partner shopco has not acknowledged interchange EF1 \\(ORDERS\\) of message ${sent.id}`,
    ),
    link: `/ui/messages/${sent.id}`,
  });
  t.same(
    await inTx(orm, (tx) => acknowledgementsOverdue(tx, new Date(due.getTime() + 60_000))),
    [],
    'marked once',
  );
  const overdue = await a.call('GET', '/api/v1/messages?acknowledgement=overdue');
  t.same(
    overdue.body.data.messages.map((m: Message) => m.id),
    [sent.id],
  );
});
