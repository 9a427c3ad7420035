// Covers GET and PUT /partners/{id}/control-numbers: the counters as they are, a reset by an administrator recorded in the audit log with the old and new number, 403 INSUFFICIENT_ROLE for an operator, 404 for an unknown partner, 400 naming the field for a bad value.
import t from 'tap';
import { inTx } from '../../flow/tx.js';
import { takeControlNumbers } from '../../flow/commands/control-numbers.js';
import { openDatabase } from '../../storage/db.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const partner = await server.call('POST', '/api/v1/partners', { body: { name: 'globex' } });
const id = partner.body.data.id as number;
const base = `/api/v1/partners/${id}/control-numbers`;

async function tokenWithRole(name: string, role: string): Promise<string> {
  await server.call('POST', '/api/v1/service-accounts', { body: { name, role } });
  const made = await server.call('POST', '/api/v1/api-tokens', {
    body: { service_account: name, label: 't' },
  });
  return made.body.data.token as string;
}

t.test('the counters as pier left them, and a reset by an administrator', async (t) => {
  t.same((await server.call('GET', base)).body.data, { control_numbers: [] }, 'none taken yet');
  const orm = await openDatabase(server.db.url, { poolMax: 1, create: false });
  t.teardown(() => orm.close());
  await inTx(orm, (tx) => takeControlNumbers(tx, id, 'outbound', { interchange: 3, set: 7 }, 999_999_999));
  const seen = await server.call('GET', base);
  t.match(seen.body.data.control_numbers, [
    { direction: 'outbound', level: 'interchange', last_value: 3 },
    { direction: 'outbound', level: 'set', last_value: 7 },
  ]);
  const reset = await server.call('PUT', `${base}/outbound/interchange`, { body: { last_value: 100 } });
  t.equal(reset.status, 200);
  t.match(reset.body.data.control_numbers, [
    { level: 'interchange', last_value: 100 },
    { level: 'set', last_value: 7 },
  ]);
  const next = await inTx(orm, (tx) =>
    takeControlNumbers(tx, id, 'outbound', { interchange: 1 }, 999_999_999),
  );
  t.same(next, { interchange: 101 }, 'the next interchange takes 101');
  const audit = await server.call('GET', `/api/v1/audit?kind=control_number&record_id=${id}`);
  t.match(audit.body.data.events[0], {
    action: 'update',
    actor: 'sa:tester',
    record_name: 'globex outbound interchange',
    changes: [{ field: 'last_value', old: 3, new: 100 }],
  });
});

t.test('only an administrator resets; bad input changes nothing', async (t) => {
  const operator = await tokenWithRole('ops', 'operator');
  const denied = await server.call('PUT', `${base}/outbound/set`, {
    token: operator,
    body: { last_value: 0 },
  });
  t.equal(denied.status, 403);
  t.same(denied.body.error.details, { role: 'operator', required: 'admin' });
  t.equal((await server.call('GET', base, { token: operator })).status, 200, 'an operator reads them');
  const unknown = await server.call('PUT', '/api/v1/partners/9999/control-numbers/outbound/set', {
    body: { last_value: 1 },
  });
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error.code, 'NOT_FOUND');
  const bad = await server.call('PUT', `${base}/outbound/set`, { body: { last_value: -1 } });
  t.equal(bad.status, 400);
  t.same(bad.body.error.details, { last_value: 'Must be 0 or more' });
  const badLevel = await server.call('PUT', `${base}/outbound/message`, { body: { last_value: 1 } });
  t.equal(badLevel.status, 400);
  t.match(badLevel.body.error.details, { level: /interchange/ });
  t.match((await server.call('GET', base)).body.data.control_numbers, [
    { last_value: 101 },
    { last_value: 7 },
  ]);
});
