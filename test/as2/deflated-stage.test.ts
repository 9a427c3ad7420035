// Covers a received document kept as its partner compressed it (PayloadStore.putDeflated): a 1 MiB EDI document sent
// pier → pier compressed, signed and encrypted is stored as the partner's zlib stream (a few KiB, no file of the
// document in the payload store), and users see the document everywhere all the same: the file handed to the
// file writer before the receipt, the unpacked download (size and bytes), a redeliver that writes the file again
// from the stored stream, the interchange's envelope read from the document the receiver has in hand, and a
// delivery queued while the writer was stopped, written once it starts. A document
// that does not compress to half its size is stored as its bytes, as before.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import t, { type Test } from 'tap';
import { agreement, startSender, syncSignedCompressed, pierToItself } from '../helpers/as2.js';
import { must, tempDir, upload, waitForMessage, type Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { purchaseOrder } from '../helpers/edi.js';
import { waitFor } from '../helpers/wait.js';

const server = await startTestServer(t);
const { cert, url } = await pierToItself(t, server);
await startSender(server, 'out');
await agreement(server, 'z', url, cert, syncSignedCompressed);
const inbox = path.join(await tempDir(t), 'inbox');
await must(server, '/plugins/configs?type=file-writer', {
  name: 'inbox',
  directory: inbox,
  path_pattern: '{filename}',
});
await must(server, '/routes', { source_plugin: 'in', from: 'spz', to: 'roz', target_plugin: 'inbox' });

const line =
  'ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261126*1200*U*00401*000000001*0*P*>~\n';
const ediOf = (n: number) => Buffer.from(`${n}:${line.repeat(Math.ceil((1024 * 1024) / line.length))}`);
let sent = 0;

const deliveryEnded = (m: Message) => m.status === 'Delivered' || m.status === 'Error';

/** Sends `document` as sz → rz and answers the message the receiving side stored, once `ready` holds. */
async function receive(t: Test, document: Buffer, ready = deliveryEnded): Promise<Message> {
  const name = `doc-${++sent}.x12`;
  const made = await upload(server, { from: 'sz', to: 'rz', target: 'out' }, { name, content: document });
  if (made.status !== 201) throw new Error(`upload of ${name}: ${made.raw}`);
  const out = await waitForMessage(
    server,
    made.body.data.id,
    (m) => m.status === 'Delivered' || m.status === 'Error',
    `${name} sent`,
    60_000,
  );
  t.equal(out.status, 'Delivered', `${name} sent and its receipt verified ${out.deliveries[0]?.last_error}`);
  const received: Message = await waitFor(async () => {
    const list = await server.call('GET', '/api/v1/messages?from=spz&limit=100');
    return (list.body.data.messages as Message[]).find((m) => m.file_name === name);
  }, `${name} received`);
  return waitForMessage(server, received.id, ready, `${name} received and routed`, 60_000);
}

const stageFile = (m: Message, name: string) => path.join(server.dataDir, 'payloads', m.id, name);

async function download(m: Message) {
  const answer = await server.app.inject({
    url: `/api/v1/messages/${m.id}/payload?stage=unpacked`,
    headers: { authorization: `Bearer ${server.token}` },
  });
  return { status: answer.statusCode, length: answer.headers['content-length'], bytes: answer.rawPayload };
}

// The receiver plans a hand-off from the parties and routes its first acceptance read.
await t.test('a first message opens the way', async (t) => {
  t.equal((await receive(t, Buffer.from('ISA*first~\n'))).status, 'Delivered');
});

t.test(
  'a compressed 1 MiB document is stored as the partner compressed it, and read as itself',
  async (t) => {
    const document = ediOf(1);
    const m = await receive(t, document);
    t.equal(m.status, 'Delivered', `received and delivered ${m.deliveries[0]?.last_error}`);
    const lines = (m.history as { kind: string; text: string }[]).filter(
      (h) => h.kind === 'delivery_changed',
    );
    t.same(
      lines.map((h) => h.text),
      [`Writing ${m.file_name}`, `Written to ${m.file_name}`],
      'handed to the writer before the receipt: written, never queued',
    );
    const file = path.join(inbox, m.file_name);
    t.ok((await readFile(file)).equals(document), 'the delivered file is the document, byte for byte');
    t.notOk(existsSync(stageFile(m, 'unpacked')), 'no file of the document in the payload store');
    const kept = await stat(stageFile(m, 'unpacked.z'));
    t.ok(kept.size < 64 * 1024, `the store keeps ${kept.size} bytes for ${document.length}`);
    t.equal(m.payloads.unpacked?.size_bytes, document.length, "the stage's size is the document's");

    const got = await download(m);
    t.equal(got.status, 200, 'the unpacked stage downloads');
    t.equal(got.length, String(document.length), 'Content-Length is the document size');
    t.ok(got.bytes.equals(document), 'the download is the document, byte for byte');

    // Redeliver writes the file again from the stored stream (the queued way: no file to copy).
    await rm(file);
    const again = await server.call(
      'POST',
      `/api/v1/messages/${m.id}/deliveries/${m.deliveries[0].id}/redeliver`,
      { body: {} },
    );
    t.equal(again.status, 200, `redeliver accepted ${again.status === 200 ? '' : again.raw}`);
    await waitFor(async () => existsSync(file) || undefined, 'the file written again', 30_000);
    await waitForMessage(server, m.id, (x) => x.status === 'Delivered', 'delivered again');
    t.ok((await readFile(file)).equals(document), 'redelivered byte for byte');
  },
);

t.test('the envelope of a compressed 1 MiB interchange is read from the document in hand', async (t) => {
  const document = Buffer.from(purchaseOrder(424242, 'SENDERCO', 'RECEIVERCO', 36_000));
  t.ok(document.length > 1024 * 1024, `the interchange is ${document.length} bytes`);
  const m = await receive(t, document);
  t.equal(m.status, 'Delivered', `received and delivered ${m.deliveries[0]?.last_error}`);
  t.ok(existsSync(stageFile(m, 'unpacked.z')), 'kept deflated');
  t.match(
    (m.protocols as { edi?: unknown }).edi,
    { standard: 'x12', interchange_control: '000424242', document_types: ['850'] },
    'the message shows its interchange',
  );
  t.ok((await readFile(path.join(inbox, m.file_name))).equals(document), 'delivered byte for byte');
});

t.test('a delivery queued while the writer was stopped is written from the stored stream', async (t) => {
  const stopped = await server.call('POST', '/api/v1/services/file-writer/inbox/stop', { body: {} });
  t.equal(stopped.status, 200, `the writer stopped ${stopped.status === 200 ? '' : stopped.raw}`);
  const document = ediOf(2);
  const m = await receive(t, document, (x) => x.deliveries[0]?.state === 'queued');
  t.not(m.status, 'Delivered', `accepted, its delivery queued (${m.status})`);
  t.ok(existsSync(stageFile(m, 'unpacked.z')), 'kept deflated');
  const started = await server.call('POST', '/api/v1/services/file-writer/inbox/start', { body: {} });
  t.equal(started.status, 200, `the writer started ${started.status === 200 ? '' : started.raw}`);
  await waitForMessage(
    server,
    m.id,
    (x) => x.status === 'Delivered',
    'delivered once the writer runs',
    30_000,
  );
  t.ok((await readFile(path.join(inbox, m.file_name))).equals(document), 'written byte for byte');
});

t.test('a document that does not compress to half its size is stored as its bytes', async (t) => {
  const document = randomBytes(256 * 1024);
  const m = await receive(t, document);
  t.equal(m.status, 'Delivered', `received and delivered ${m.deliveries[0]?.last_error}`);
  t.ok(existsSync(stageFile(m, 'unpacked')), 'the document is a file in the store');
  t.notOk(existsSync(stageFile(m, 'unpacked.z')), 'not kept deflated');
  t.ok((await download(m)).bytes.equals(document), 'downloaded byte for byte');
  t.ok((await readFile(path.join(inbox, m.file_name))).equals(document), 'delivered byte for byte');
});
