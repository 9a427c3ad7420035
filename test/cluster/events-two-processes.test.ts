// Covers the event stream across the cluster: a history line written by a second `pier serve` process on the same database reaches a subscriber of the first (LISTEN/NOTIFY carries ids, the rows are read).
import path from 'node:path';
import t from 'tap';
import { fileFlow, parties, tempDir } from '../helpers/flow.js';
import { spawnPier } from '../helpers/process.js';
import { startTestServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';

const first = await startTestServer(t, { listen: true });
const dir = await tempDir(t, 'pier-events-');
await parties(first);
await fileFlow(first, dir);
const second = await spawnPier(t, {
  databaseUrl: first.db.url,
  dataDir: path.join(dir, 'data-2'),
  cwd: dir,
  // One cluster, one secret key (the test servers' key).
  env: { PIER_SECRET_KEY: 'pier-test-secret-key' },
});

t.test('a line written by the second process reaches a subscriber of the first', async (t) => {
  const client = await openSse(`${first.url}/api/v1/events`, { authorization: `Bearer ${first.token}` });
  t.teardown(() => client.close());
  await client.until(() => first.ctx.runtime!.history.subscriberCount === 1, 'subscribed');
  const form = new FormData();
  form.append('from', 'acme');
  form.append('to', 'globex');
  form.append('file', new Blob(['from the other process\n']), 'other.txt');
  const answer = await fetch(`${second.url}/api/v1/messages`, {
    method: 'POST',
    headers: { 'x-requested-with': 'test' },
    body: form,
  });
  t.equal(answer.status, 201, 'the second process took the message');
  const id = ((await answer.json()) as { data: { id: string } }).data.id;
  const line = await client.until(
    () => client.lines().find((l) => l.message_id === id),
    'the line written by the other process',
  );
  t.match(line, { kind: 'status_changed', new_status: 'Received', text: 'Sent by hand by developer' });
});
