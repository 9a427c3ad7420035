// Covers the control numbers received from a partner, end to end: interchanges a partner sends (here through a file poller) set its inbound interchange counter, which GET /partners/{id}/control-numbers shows, and one whose ISA13 is not after the last one received gets a duplicate_received line in its history once the acknowledgement sweep has looked at it.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { purchaseOrder } from '../helpers/edi.js';
import { must, tempDir, waitForMessages } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const dir = await tempDir(t);
const inbox = path.join(dir, 'in');
// The poller's path names the receiver: {to}/{filename}.
await mkdir(path.join(inbox, 'acme'), { recursive: true });
await must(server, '/organizations', { name: 'acme', interchange_ids: [{ qualifier: 'ZZ', id: 'ACME' }] });
const globex = await must(server, '/partners', {
  name: 'globex',
  interchange_ids: [{ qualifier: 'ZZ', id: 'GLOBEX' }],
});
await must(server, '/plugins/configs?type=file-writer', { name: 'out', directory: path.join(dir, 'out') });
await must(server, '/plugins/configs?type=file-poller', {
  name: 'in',
  base_directory: inbox,
  processed_directory: path.join(dir, 'done'),
  from: 'globex',
  polling_interval: 1,
});
await must(server, '/routes', { source_plugin: 'in', from: 'globex', to: 'acme', target_plugin: 'out' });

t.test('the last number received is shown, and a repeated one is noted', async (t) => {
  for (const [file, control] of [
    ['po-41.edi', 41],
    ['po-42.edi', 42],
  ] as const) {
    await writeFile(path.join(inbox, 'acme', file), purchaseOrder(control, 'GLOBEX', 'ACME'));
    await waitForMessages(server, `q=${file}`, (l) => l.length === 1, file);
  }
  const counter = async () =>
    (
      (await server.call('GET', `/api/v1/partners/${globex.body.data.id}/control-numbers`)).body.data
        .control_numbers as { direction: string; level: string; last_value: number }[]
    ).find((c) => c.direction === 'inbound');
  const deadline = Date.now() + 20_000;
  while ((await counter())?.last_value !== 42 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 250));
  t.match(await counter(), { direction: 'inbound', level: 'interchange', last_value: 42 });

  await writeFile(path.join(inbox, 'acme', 'po-41-again.edi'), purchaseOrder(41, 'GLOBEX', 'ACME'));
  const [again] = await waitForMessages(
    server,
    'q=po-41-again.edi',
    (l) => l.length === 1 && l[0]!.history.some((h: { kind: string }) => h.kind === 'duplicate_received'),
    'the repeated interchange noted',
    25_000,
  );
  t.match(
    again!.history.find((h: { kind: string }) => h.kind === 'duplicate_received')!.text,
    'Interchange control number 000000041 from globex is not after the last one received (42): a duplicate or out of sequence',
  );
  t.match(await counter(), { last_value: 42 }, 'the counter keeps the largest');
});
