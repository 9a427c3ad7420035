// Covers the audit events of certificate uploads and imports: one event per certificate, written in one batch for an import, and a hash chain that still verifies.
import t from 'tap';
import { makeFixtures } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { uploadCertificate } from '../helpers/upload.js';

const server = await startTestServer(t, { env: { AUDIT_KEY: 'audit-key-for-tests' } });
const f = makeFixtures(t);
for (const name of ['a', 'b', 'c']) f.selfSigned(name, `/CN=${name}.example`);

t.test('an import writes one chained event per certificate; the log verifies', async (t) => {
  const single = await uploadCertificate(server, { certificate: f.read('a.crt'), description: 'first' });
  t.equal(single.status, 201);
  const bundle = Buffer.concat([
    f.read('b.crt'),
    f.read('b.key'),
    f.read('c.crt'),
    f.read('a.crt'),
    f.read('a.key'),
  ]);
  const found = await uploadCertificate(server, { certificate: bundle });
  const imported = await server.call('POST', '/api/v1/certificates/import', {
    body: {
      import_token: found.body.data.import_token,
      certificates: [{ index: 0 }, { index: 1 }, { index: 2 }],
    },
  });
  t.equal(imported.status, 201);
  t.same(
    imported.body.data.certificates.map((c: { common_name: string; has_private_key: boolean }) => [
      c.common_name,
      c.has_private_key,
    ]),
    [
      ['b.example', true],
      ['c.example', false],
      ['a.example', true],
    ],
    'the stored a.example got its key',
  );
  const events = await sql<{ action: string; record_name: string; hash: string; prev_hash: string }>(
    server.db.url,
    "select action, record_name, hash, prev_hash from audit_event where kind = 'certificate' order by id",
  );
  t.same(
    events.map((e) => [e.action, e.record_name]),
    [
      ['create', 'first'],
      ['update', 'first'],
      ['create', 'b.example'],
      ['create', 'c.example'],
    ],
  );
  for (let i = 1; i < events.length; i++)
    t.equal(events[i]!.prev_hash, events[i - 1]!.hash, `event ${i} is chained`);
  const verified = await server.call('POST', '/api/v1/audit/verify');
  t.equal(verified.status, 200);
  t.match(verified.body.data, { ok: true, unchained: 0 });
  t.ok(verified.body.data.chained >= 6);
});
