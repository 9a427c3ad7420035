// Covers the audit log (docs/api/audit.md, docs/api/conventions.md#lists): events for configuration changes, every filter,
// unknown parameters, record_gone, the HMAC chain detecting tampering, and AUDIT_KEY_REQUIRED.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const key = 'audit-key-for-tests';
const server = await startTestServer(t, { env: { AUDIT_KEY: key } });
const audit = '/api/v1/audit';

const made = await server.call('POST', '/api/v1/partners', {
  body: { name: 'initech', display_name: 'Initech' },
});
const partnerId = made.body.data.id as number;
await server.call('PUT', `/api/v1/partners/${partnerId}`, { body: { display_name: 'Initech LLC' } });
await server.call('DELETE', `/api/v1/partners/${partnerId}`);

t.test('create, update and delete are recorded with their changes', async (t) => {
  const r = await server.call('GET', `${audit}?kind=partner&record_id=${partnerId}`);
  t.equal(r.status, 200);
  const events = r.body.data.events;
  t.same(
    events.map((e: { action: string }) => e.action),
    ['delete', 'update', 'create'],
    'newest first',
  );
  t.same(events[1].changes, [{ field: 'display_name', old: 'Initech', new: 'Initech LLC' }]);
  t.ok(
    events.every((e: { record_gone: boolean }) => e.record_gone),
    'the record is gone',
  );
  t.ok(events.every((e: { record_name: string }) => e.record_name === 'initech'));
  t.match(events[0], { v: 1, actor: 'sa:tester', kind: 'partner', record_id: String(partnerId) });
  t.match(events[0].hash, /^[0-9a-f]{64}$/);
  t.equal(events[0].prev_hash, events[1].hash, 'each event names the hash of the one before');
});

t.test('filters combine; unknown parameters and bad values are refused', async (t) => {
  const byAction = await server.call('GET', `${audit}?action=update&record_name=initech`);
  t.equal(byAction.body.data.total, 1);
  const byActor = await server.call('GET', `${audit}?actor=system`);
  t.ok(byActor.body.data.total >= 2, 'the bootstrap account and token were made by system');
  const today = new Date().toISOString().slice(0, 10);
  const dated = await server.call('GET', `${audit}?kind=partner&from=${today}&to=${today}`);
  t.equal(dated.body.data.total, 3, 'a date as to covers its whole day');
  const past = await server.call('GET', `${audit}?kind=partner&to=2000-01-01T00:00:00Z`);
  t.equal(past.body.data.total, 0);
  const limited = await server.call('GET', `${audit}?limit=1&offset=1`);
  t.equal(limited.body.data.events.length, 1);
  t.equal(limited.body.data.limit, 1);
  t.equal(limited.body.data.offset, 1);

  const unknown = await server.call('GET', `${audit}?colour=red`);
  t.equal(unknown.status, 400);
  t.same(unknown.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: { colour: 'Unknown parameter' },
  });
  const badTime = await server.call('GET', `${audit}?from=yesterday`);
  t.same(badTime.body.error.details, { from: 'Must be an RFC 3339 time or a date (YYYY-MM-DD)' });
  const badDate = await server.call('GET', `${audit}?to=2026-02-31`);
  t.equal(badDate.status, 400);
  const badAction = await server.call('GET', `${audit}?action=rename`);
  t.same(badAction.body.error.details, {
    action:
      'Must be one of: create, update, delete, revoke, start, stop, restart, redispatch, redeliver, upload, export',
  });
});

t.test('the chain verifies, and tampering is found at the changed event', async (t) => {
  const ok = await server.call('POST', `${audit}/verify`);
  t.equal(ok.status, 200);
  t.match(ok.body.data, { ok: true, unchained: 0 });
  t.equal(ok.body.data.chained, ok.body.data.events_checked);
  t.ok(ok.body.data.events_checked >= 5);
  const [head] = await sql<{ id: string; hash: string }>(
    server.db.url,
    'select id, hash from audit_event order by id desc limit 1',
  );
  t.equal(ok.body.data.head_id, Number(head!.id));
  t.equal(ok.body.data.head_hash, head!.hash);

  const [victim] = await sql<{ id: string }>(
    server.db.url,
    "select id from audit_event where action = 'update' and kind = 'partner'",
  );
  await sql(server.db.url, "update audit_event set record_name = 'forged' where id = $1", [victim!.id]);
  const broken = await server.call('POST', `${audit}/verify`);
  t.equal(broken.body.data.ok, false);
  t.equal(broken.body.data.first_broken_id, Number(victim!.id));
  t.match(broken.body.data.reason, /hash does not match/);
  await sql(server.db.url, "update audit_event set record_name = 'initech' where id = $1", [victim!.id]);

  await sql(server.db.url, 'delete from audit_event where id = $1', [victim!.id]);
  const removed = await server.call('POST', `${audit}/verify`);
  t.equal(removed.body.data.ok, false);
  t.ok(removed.body.data.first_broken_id > Number(victim!.id), 'the event after the removed one breaks');
  t.match(removed.body.data.reason, /prev_hash/);
});

t.test('a process without the key cannot verify hashed events', async (t) => {
  const keyless = await startTestServer(t, { db: server.db });
  const r = await keyless.call('POST', `${audit}/verify`);
  t.equal(r.status, 409);
  t.same(r.body.error, {
    code: 'AUDIT_KEY_REQUIRED',
    message: 'The audit log has hashed events; set AUDIT_KEY to verify it',
  });
});

t.test('without a key, events are unchained and the log verifies as such', async (t) => {
  const plain = await startTestServer(t);
  await plain.call('POST', '/api/v1/organizations', { body: { name: 'plain' } });
  const r = await plain.call('POST', `${audit}/verify`);
  t.match(r.body.data, { ok: true, chained: 0, head_hash: '' });
  t.equal(r.body.data.unchained, r.body.data.events_checked);
});
