// Covers the inbound policy fields of remote AS2 profiles (inbound_signature, inbound_encryption, inbound_algorithms): secure defaults on create (modern algorithms under as2bis), updates independent of the outbound algorithms, bad values refused with 400 and nothing stored, and Migration0070 keeping what older profiles accepted (outbound none meant optional).
import t from 'tap';
import { inboundPolicyStatements } from '../../storage/migrations/Migration0070InboundPolicy.js';
import { storeCertificate } from '../helpers/as2.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { must } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const f = makeFixtures(t);
f.selfSigned('globex', '/O=globex/CN=globex.example');
const certificate = await storeCertificate(server, f, 'globex', false);
const partner = async (name: string) => (await must(server, '/partners', { name })).body.data.id as number;
const base = (id: number, as2id: string) => ({
  business_partner_id: id,
  as2id,
  endpoint: 'https://as2.partner.example/as2',
  partner_certificate_id: certificate,
});

t.test('a new profile requires signed and encrypted messages, whatever pier sends', async (t) => {
  const id = await partner('plain-sender');
  const made = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: { ...base(id, 'PLAIN'), signing_algorithm: 'none', encryption_algorithm: 'none' },
  });
  t.equal(made.status, 201, made.raw);
  t.match(made.body.data, {
    signing_algorithm: 'none',
    encryption_algorithm: 'none',
    inbound_signature: 'required',
    inbound_encryption: 'required',
    inbound_algorithms: 'any',
  });
});

t.test('under as2bis a new profile accepts only modern algorithms unless told otherwise', async (t) => {
  const modern = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: { ...base(await partner('bis'), 'BIS'), as2bis: true },
  });
  t.equal(modern.body.data.inbound_algorithms, 'modern');
  const any = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: { ...base(await partner('bis-any'), 'BIS-ANY'), as2bis: true, inbound_algorithms: 'any' },
  });
  t.equal(any.body.data.inbound_algorithms, 'any');
});

t.test('the inbound fields change alone, and bad values are refused with nothing stored', async (t) => {
  const id = await partner('changer');
  await server.call('POST', '/api/v1/as2/remote-profiles', { body: base(id, 'CHANGER') });
  const changed = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
    body: { inbound_signature: 'optional', inbound_algorithms: 'modern' },
  });
  t.equal(changed.status, 200, changed.raw);
  t.match(changed.body.data, {
    signing_algorithm: 'sha256',
    inbound_signature: 'optional',
    inbound_encryption: 'required',
    inbound_algorithms: 'modern',
  });
  const bad = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
    body: { inbound_signature: 'sometimes', inbound_encryption: 'optional' },
  });
  t.equal(bad.status, 400);
  t.match(bad.body.error.details, { inbound_signature: /required|optional/ });
  const after = await server.call('GET', `/api/v1/as2/remote-profiles/${id}`);
  t.equal(after.body.data.inbound_encryption, 'required', 'nothing of the refused request stored');
});

t.test('Migration0070 keeps what older profiles accepted', async (t) => {
  const db = server.db.url;
  const unsignedIn = await partner('old-unsigned');
  const clearIn = await partner('old-clear');
  // The table as Migration0070 finds it: without the columns, with profiles written before.
  await sql(
    db,
    `alter table as2_remote_profile drop column inbound_signature, drop column inbound_encryption,
       drop column inbound_algorithms`,
  );
  const insert = `insert into as2_remote_profile (partner_id, as2id, endpoint, signing_algorithm,
      encryption_algorithm, compression, mdn_mode, mdn_signed, receipt_timeout_hours)
    values ($1, $2, 'https://older.example/as2', $3, $4, true, 'none', false, 24)`;
  await sql(db, insert, [unsignedIn, 'OLD-UNSIGNED', 'none', 'aes256-cbc']);
  await sql(db, insert, [clearIn, 'OLD-CLEAR', 'sha256', 'none']);
  for (const statement of inboundPolicyStatements) await sql(db, statement);
  const a = await server.call('GET', `/api/v1/as2/remote-profiles/${unsignedIn}`);
  t.match(a.body.data, {
    inbound_signature: 'optional',
    inbound_encryption: 'required',
    inbound_algorithms: 'any',
  });
  const b = await server.call('GET', `/api/v1/as2/remote-profiles/${clearIn}`);
  t.match(b.body.data, {
    inbound_signature: 'required',
    inbound_encryption: 'optional',
    inbound_algorithms: 'any',
  });
  const earlier = await server.call('GET', '/api/v1/as2/remote-profiles?limit=100');
  const plain = (earlier.body.data.profiles as { as2id: string; inbound_signature: string }[]).find(
    (p) => p.as2id === 'PLAIN',
  );
  t.equal(
    plain?.inbound_signature,
    'optional',
    'a profile sending unsigned also accepts unsigned after the migration',
  );
});
