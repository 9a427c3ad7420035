// Covers routing by the EDI envelope for files: the file poller reads each file's envelope, the parties come from
// the registered interchange ids rather than the path, a route naming document type 850 takes the 850 and not an
// 856 (NotRouted), a file that is not EDI is routed by its path as before, and read_edi_envelope off turns it all off.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { fileFlow, must, tempDir, waitForMessages, type Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { x12Interchange, purchaseOrder } from '../helpers/edi.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
const inbox = path.join(dir, 'in');
const outbox = path.join(dir, 'out');
await must(server, '/organizations', { name: 'acme', interchange_ids: [{ qualifier: 'ZZ', id: 'ACME' }] });
await must(server, '/partners', { name: 'hub' });
await must(server, '/partners', { name: 'shopco', interchange_ids: [{ qualifier: 'ZZ', id: 'SHOPCO' }] });
await mkdir(path.join(inbox, 'hub'), { recursive: true });
await fileFlow(server, dir, {
  to: 'shopco',
  poller: { polling_interval: 1 },
  route: { document_type: '850' },
});
await must(server, '/routes', { source_plugin: 'in', from: 'acme', to: 'hub', target_plugin: 'out' });

const byName = async (name: string, done: (m: Message) => boolean) =>
  (await waitForMessages(server, `q=${name}`, (l) => l.length === 1 && done(l[0]!), name))[0]!;

t.test('the envelope names the parties and the document type picks the route', async (t) => {
  const po = purchaseOrder(5, 'ACME', 'SHOPCO');
  await writeFile(path.join(inbox, 'hub', 'po-5.edi'), po);
  const m = await byName('po-5.edi', (m) => m.status === 'Delivered');
  t.match(m, { from: 'acme', to: 'shopco', direction: 'outbound' });
  t.match(
    m.history[0]!.text,
    /by its X12 envelope, sender ZZ:ACME is organization acme, receiver ZZ:SHOPCO is partner shopco/,
  );
  t.equal(await readFile(path.join(outbox, 'acme', 'po-5.edi'), 'utf8'), po);

  const asn = x12Interchange({
    sender: ['ZZ', 'ACME'],
    receiver: ['ZZ', 'SHOPCO'],
    control: 6,
    groups: [
      {
        functionalId: 'SH',
        control: '6',
        sets: [{ type: '856', control: '0001', body: ['BSN*00*ASN6*20261123*1200'] }],
      },
    ],
  });
  await writeFile(path.join(inbox, 'hub', 'asn-6.edi'), asn);
  const unrouted = await byName('asn-6.edi', (m) => m.status === 'NotRouted');
  t.match(unrouted, { to: 'shopco', deliveries: [] }, 'no route names 856 for shopco');
});

t.test('a file that is not EDI keeps the parties of its path', async (t) => {
  await writeFile(path.join(inbox, 'hub', 'notes.txt'), 'plain text');
  const m = await byName('notes.txt', (m) => m.status === 'Delivered');
  t.match(m, { from: 'acme', to: 'hub', protocols: {} });
});

t.test('read_edi_envelope off: the path decides, and nothing is read', async (t) => {
  const put = await server.call('PUT', '/api/v1/plugins/configs/file-poller/in', {
    body: { read_edi_envelope: false },
  });
  t.equal(put.status, 200);
  await server.call('POST', '/api/v1/services/file-poller/in/restart', { body: {} });
  await writeFile(path.join(inbox, 'hub', 'po-7.edi'), purchaseOrder(7, 'ACME', 'SHOPCO'));
  const m = await byName('po-7.edi', (m) => m.status === 'Delivered');
  t.match(m, { from: 'acme', to: 'hub' });
  t.same(m.protocols, {}, 'no envelope stored');
});
