// Covers the settings record (docs/api/settings.md): defaults, validation of every property,
// storage_in_use and restart_needed, partial updates, and auditing of changes.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const url = '/api/v1/settings';

t.test('defaults, and the storage the process runs with', async (t) => {
  const r = await server.call('GET', url);
  t.equal(r.status, 200);
  t.match(r.body.data, {
    storage_backend: 'local',
    storage_local_directory: `${server.dataDir}/payloads`,
    storage_s3_bucket: '',
    storage_s3_region: '',
    storage_s3_endpoint: '',
    delivery_max_dispatches: 5,
    identification_hide_version: false,
    storage_in_use: { storage_backend: 'local', storage_local_directory: `${server.dataDir}/payloads` },
    restart_needed: false,
  });
  const [column] = await sql<{ column_default: string }>(
    server.db.url,
    "select column_default from information_schema.columns where table_name = 'settings' and column_name = 'storage_local_directory'",
  );
  t.equal(column!.column_default, "'./payloads'::text", 'a new installation starts from ./payloads');
  t.match(r.body.data.updated_at, /^\d{4}-\d\d-\d\dT/);
});

t.test('invalid values are refused, naming each property, and nothing changes', async (t) => {
  const cases: [Record<string, unknown>, Record<string, string>][] = [
    [
      { storage_backend: 's3' },
      { storage_s3_bucket: 'Required for S3 storage', storage_s3_region: 'Required for S3 storage' },
    ],
    [{ storage_backend: 'ftp' }, { storage_backend: 'Must be one of: local, s3' }],
    [{ storage_local_directory: '' }, { storage_local_directory: 'Required for local storage' }],
    [{ storage_s3_endpoint: 'ftp://x' }, { storage_s3_endpoint: 'Must be an absolute http or https URL' }],
    [{ storage_s3_endpoint: 'minio:9000' }, { storage_s3_endpoint: 'Must be an absolute http or https URL' }],
    [
      { storage_s3_endpoint: 'http://key:secret@127.0.0.1:9000' },
      { storage_s3_endpoint: 'Must not contain credentials (user name, password or a token parameter)' },
    ],
    [{ delivery_max_dispatches: 0 }, { delivery_max_dispatches: 'Must be at least 1' }],
    [{ delivery_max_dispatches: 21 }, { delivery_max_dispatches: 'Must be at most 20' }],
    [{ delivery_max_dispatches: 2.5 }, { delivery_max_dispatches: 'Must be a whole number' }],
    [{ identification_hide_version: 'yes' }, { identification_hide_version: 'Must be true or false' }],
    [{ storage_password: 'x' }, { storage_password: 'Unknown property' }],
    [{ storage_local_directory: '/' }, { storage_local_directory: 'Must not be the root directory' }],
    [{ storage_local_directory: '/tmp/..//' }, { storage_local_directory: 'Must not be the root directory' }],
    [
      { storage_local_directory: '/etc' },
      { storage_local_directory: 'Must not be /etc, a system directory' },
    ],
    [
      { storage_local_directory: '/proc/pier' },
      { storage_local_directory: 'Must not be on /proc, a kernel pseudo-filesystem' },
    ],
  ];
  const before = await server.call('GET', url);
  for (const [body, details] of cases) {
    const r = await server.call('PUT', url, { body });
    t.equal(r.status, 400, JSON.stringify(body));
    t.same(
      r.body.error,
      { code: 'INVALID_INPUT', message: 'Validation failed', details },
      JSON.stringify(body),
    );
  }
  const after = await server.call('GET', url);
  t.same(after.body.data, before.body.data);
});

t.test('a saved storage change needs a restart; other properties keep their values', async (t) => {
  const s3 = await server.call('PUT', url, {
    body: {
      storage_backend: 's3',
      storage_s3_bucket: 'pier-payloads',
      storage_s3_region: 'eu-central-1',
      storage_s3_endpoint: 'http://127.0.0.1:9000',
    },
  });
  t.equal(s3.status, 200);
  t.equal(s3.body.data.restart_needed, true);
  t.equal(s3.body.data.storage_in_use.storage_backend, 'local');
  t.equal(s3.body.data.delivery_max_dispatches, 5, 'left out, kept');

  const back = await server.call('PUT', url, { body: { ...s3.body.data, storage_backend: 'local' } });
  t.equal(back.status, 200, 'a record read back can be sent again, read-only fields included');
  t.equal(back.body.data.restart_needed, true, 'the s3 fields still differ from those in use');
  const reset = await server.call('PUT', url, {
    body: {
      storage_s3_bucket: '',
      storage_s3_region: '',
      storage_s3_endpoint: '',
      delivery_max_dispatches: 7,
    },
  });
  t.equal(reset.body.data.restart_needed, false);
  t.equal(reset.body.data.delivery_max_dispatches, 7);

  const events = await sql<{ changes: { field: string; old: unknown; new: unknown }[] }>(
    server.db.url,
    "select changes from audit_event where kind = 'settings' order by id",
  );
  t.equal(events.length, 3, 'each change is audited');
  t.same(
    events[2]!.changes.find((c) => c.field === 'delivery_max_dispatches'),
    { field: 'delivery_max_dispatches', old: 5, new: 7 },
  );
});
