// Covers the one rule for directories that hold pier's files: the root and the system's own directories (/etc, /usr/bin…, also reached through `..`) are refused with the same words on a file writer's and a file poller's directories (create, update, configuration file plan) as on the payload store's setting, nothing is stored, and a folder under one (/var/lib/pier) is fine.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const configs = '/api/v1/plugins/configs';
await server.call('POST', '/api/v1/organizations', { body: { name: 'acme' } });

const refusals: [string, string][] = [
  ['/', 'Must not be the root directory'],
  ['/tmp/..', 'Must not be the root directory'],
  ['/etc', 'Must not be /etc, a system directory'],
  ['/etc/', 'Must not be /etc, a system directory'],
  ['/usr/bin', 'Must not be /usr/bin, a system directory'],
  ['//usr//bin/.', 'Must not be /usr/bin, a system directory'],
  ['/srv/../usr/bin', 'Must not be /usr/bin, a system directory'],
  ['/var/lib', 'Must not be /var/lib, a system directory'],
];
const stored = async () =>
  (await sql<{ n: number }>(server.db.url, 'select count(*)::int as n from plugin_config'))[0]!.n;
const invalid = (details: Record<string, string>) => ({
  code: 'INVALID_INPUT',
  message: 'Validation failed',
  details,
});

t.test('a file writer or poller in a system directory is refused, as the payload store is', async (t) => {
  const before = await stored();
  for (const [directory, words] of refusals) {
    const writer = await server.call('POST', `${configs}?type=file-writer`, {
      body: { name: 'sysdir', directory },
    });
    t.equal(writer.status, 400, `file-writer ${directory}: ${writer.raw}`);
    t.same(writer.body.error, invalid({ directory: words }), `file-writer ${directory}`);

    const poller = await server.call('POST', `${configs}?type=file-poller`, {
      body: { name: 'sysdir', base_directory: directory, processed_directory: directory, from: 'acme' },
    });
    t.equal(poller.status, 400, `file-poller ${directory}`);
    t.same(
      poller.body.error,
      invalid({ base_directory: words, processed_directory: words }),
      `file-poller ${directory}`,
    );

    const storage = await server.call('PUT', '/api/v1/settings', {
      body: { storage_local_directory: directory },
    });
    t.same(
      storage.body.error,
      invalid({ storage_local_directory: words }),
      `the payload store's setting, ${directory}, in the same words`,
    );
  }
  t.equal(await stored(), before, 'nothing stored');
});

t.test('an update into a system directory is refused; a folder under one is fine', async (t) => {
  const made = await server.call('POST', `${configs}?type=file-writer`, {
    body: { name: 'writer', enabled: false, directory: '/var/lib/pier/out' },
  });
  t.equal(made.status, 201, made.raw);
  const moved = await server.call('PUT', `${configs}/file-writer/writer`, {
    body: { directory: '/usr/bin' },
  });
  t.equal(moved.status, 400);
  t.same(moved.body.error, invalid({ directory: 'Must not be /usr/bin, a system directory' }));
  const kept = await server.call('GET', `${configs}/file-writer/writer`);
  t.equal(kept.body.data.directory, '/var/lib/pier/out', 'the directory is unchanged');
});

t.test('a configuration file naming a system directory is refused by its path', async (t) => {
  const document = JSON.stringify({
    pier_config: 1,
    instances: [{ type: 'file-writer', name: 'from-file', settings: { directory: '/etc' } }],
  });
  const before = await stored();
  for (const step of ['plan', 'apply']) {
    const answer = await server.call('POST', `/api/v1/config/${step}`, { body: { document } });
    t.equal(answer.status, 400, `${step}: ${answer.raw}`);
    t.same(answer.body.error, {
      code: 'INVALID_INPUT',
      message: 'The configuration file has 1 problem(s)',
      details: { 'instances[0].settings.directory': 'Must not be /etc, a system directory' },
    });
  }
  t.equal(await stored(), before, 'nothing stored');
});
