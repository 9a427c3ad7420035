// Covers `pier serve` on a multi-host DATABASE_URL with target_session_attrs=any whose first node
// refuses connections: the process takes the second node, the first that answers, and serves.
import t from 'tap';
import { createTestDatabase } from './helpers/database.js';
import { tempDir } from './helpers/flow.js';
import { freePort } from './helpers/free-port.js';
import { spawnPier } from './helpers/process.js';

const database = await createTestDatabase();
t.teardown(() => database.drop());

t.test('pier serve connects through the second node when the first refuses', async (t) => {
  const real = new URL(database.url);
  const url = `postgresql://${real.username}${real.password ? `:${real.password}` : ''}@127.0.0.1:${await freePort()},${real.host}${real.pathname}?target_session_attrs=any`;
  const dir = await tempDir(t, 'pier-any-');
  const pier = await spawnPier(t, { databaseUrl: url, dataDir: `${dir}/data`, cwd: dir });
  const ready = await fetch(`${pier.url}/ready`);
  t.equal(ready.status, 200, 'ready: its database answers');
  const created = await pier.call('POST', '/organizations', { name: 'acme' });
  t.equal(created.status, 201, 'and takes writes');
  const read = await pier.call('GET', `/organizations/${created.body.data.id}`);
  t.equal(read.body.data?.name, 'acme', 'and reads them back');
});
