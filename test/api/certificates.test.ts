// Covers stored certificates: list filters (q, status, key), the expiring list, get, description update, PEM download and delete.
import t from 'tap';
import { makeStandardFixtures, password } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { uploadCertificate } from '../helpers/upload.js';

const server = await startTestServer(t);
const f = makeStandardFixtures();
f.dated('old', '/O=Hooli/CN=Hooli Old AS2', '20200101000000Z', '20210101000000Z');
t.teardown(() => f.remove());

async function store(parts: Parameters<typeof uploadCertificate>[1]): Promise<number> {
  const answer = await uploadCertificate(server, parts);
  if (answer.status !== 201) throw new Error(`upload failed: ${answer.raw}`);
  return answer.body.data.id as number;
}
const acme = await store({ certificate: f.read('modern.p12'), password, description: 'Acme signing 2027' });
const globex = await store({ certificate: f.read('ec.crt'), description: 'Globex partner' });
const hooli = await store({ certificate: f.read('old.crt'), description: 'Hooli (retired)' });

async function ids(query: string): Promise<number[]> {
  const answer = await server.call('GET', `/api/v1/certificates${query}`);
  if (answer.status !== 200) throw new Error(`list failed: ${answer.raw}`);
  return answer.body.data.certificates.map((c: { id: number }) => c.id);
}

t.test('the list is ordered by common name and pages', async (t) => {
  const all = await server.call('GET', '/api/v1/certificates');
  t.equal(all.body.data.total, 3);
  t.same(
    all.body.data.certificates.map((c: { common_name: string }) => c.common_name),
    ['as2.acme.example', 'Globex EDI', 'Hooli Old AS2'],
  );
  const page = await server.call('GET', '/api/v1/certificates?limit=1&offset=1');
  t.same(
    page.body.data.certificates.map((c: { id: number }) => c.id),
    [globex],
  );
  t.equal(page.body.data.total, 3);
  t.equal(page.body.data.limit, 1);
});

t.test('q finds description, common name, subject, issuer, serial and fingerprint prefixes', async (t) => {
  const [row] = await sql<{ sha256: string; serial_number: string }>(
    server.db.url,
    'select sha256, serial_number from certificate where id = $1',
    [acme],
  );
  const sha = row!.sha256;
  t.same(await ids('?q=SIGNING'), [acme], 'description, any case');
  t.same(await ids('?q=globex%20edi'), [globex], 'common name');
  t.same(await ids(`?q=${encodeURIComponent('O=Hooli')}`), [hooli], 'subject');
  t.same(
    await ids(`?q=${row!.serial_number.slice(4, 16).toLowerCase()}`),
    [acme],
    'part of the serial number',
  );
  t.same(await ids(`?q=${sha.slice(0, 4)}`), [acme], 'four hex digits of the SHA-256 fingerprint');
  const colons = sha
    .slice(0, 8)
    .toUpperCase()
    .replace(/(..)(?!$)/g, '$1:');
  t.same(await ids(`?q=${encodeURIComponent(colons)}`), [acme], 'a fingerprint with colons');
  t.same(await ids(`?q=${sha.slice(1, 9)}`).then((l) => l.includes(acme)), false, 'only the start counts');
  t.same(await ids('?q=zzz-nothing'), []);
});

t.test('status and key filters combine', async (t) => {
  t.same(await ids('?status=valid'), [acme]);
  t.same(await ids('?status=expiring'), [globex]);
  t.same(await ids('?status=expired'), [hooli]);
  t.same(await ids('?key=present'), [acme]);
  t.same(await ids('?key=absent'), [globex, hooli]);
  t.same(await ids('?key=absent&status=expired'), [hooli]);
  t.same(await ids('?key=present&q=globex'), []);
  const bad = await server.call('GET', '/api/v1/certificates?status=old&key=maybe&limit=0');
  t.equal(bad.status, 400);
  t.same(bad.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: {
      status: 'Must be one of: valid, expiring, expired',
      key: 'Must be one of: present, absent',
      limit: 'Must be a whole number of at least 1',
    },
  });
});

t.test('the records show state and days remaining', async (t) => {
  const old = await server.call('GET', `/api/v1/certificates/${hooli}`);
  t.equal(old.body.data.state, 'expired');
  t.ok(old.body.data.days_remaining < -300, 'negative: days since it expired');
  t.equal(old.body.data.not_after, '2021-01-01T00:00:00.000Z');
  const soon = await server.call('GET', `/api/v1/certificates/${globex}`);
  t.equal(soon.body.data.state, 'expiring');
  t.ok(soon.body.data.days_remaining >= 19 && soon.body.data.days_remaining <= 20);
});

t.test('expiring lists expired and expiring certificates, soonest first', async (t) => {
  const answer = await server.call('GET', '/api/v1/certificates/expiring');
  t.equal(answer.status, 200);
  t.same(
    answer.body.data.certificates.map((c: { id: number }) => c.id),
    [hooli, globex],
  );
  t.equal(answer.body.data.total, 2);
  const wide = await server.call('GET', '/api/v1/certificates/expiring?days=400');
  t.same(
    wide.body.data.certificates.map((c: { id: number }) => c.id),
    [hooli, globex, acme],
  );
  const narrow = await server.call('GET', '/api/v1/certificates/expiring?days=1');
  t.same(
    narrow.body.data.certificates.map((c: { id: number }) => c.id),
    [hooli],
  );
  for (const days of ['0', 'soon', '-3', '1.5']) {
    const bad = await server.call('GET', `/api/v1/certificates/expiring?days=${days}`);
    t.equal(bad.status, 400, days);
    t.same(bad.body.error.details, { days: 'Must be a whole number from 1 to 36500' });
  }
});

t.test('only the description changes; a record read back can be sent again', async (t) => {
  const before = await server.call('GET', `/api/v1/certificates/${globex}`);
  const changed = await server.call('PUT', `/api/v1/certificates/${globex}`, {
    body: { description: 'Globex EDI 2026', common_name: 'forged', has_private_key: true },
  });
  t.equal(changed.status, 200);
  t.equal(changed.body.data.description, 'Globex EDI 2026');
  t.equal(changed.body.data.common_name, 'Globex EDI', 'read-only fields are ignored');
  t.equal(changed.body.data.has_private_key, false);
  t.equal(changed.body.data.fingerprint_sha256, before.body.data.fingerprint_sha256);
  const roundTrip = await server.call('PUT', `/api/v1/certificates/${globex}`, { body: changed.body.data });
  t.equal(roundTrip.status, 200);
  const otherId = await server.call('PUT', `/api/v1/certificates/${globex}`, { body: { id: acme } });
  t.equal(otherId.status, 400);
  t.same(otherId.body.error.details, { id: `Names certificate ${acme}, but the path names ${globex}` });
  const unknown = await server.call('PUT', `/api/v1/certificates/${globex}`, { body: { colour: 'red' } });
  t.same(unknown.body.error.details, { colour: 'Unknown property' });
  const [audit] = await sql<{ changes: unknown }>(
    server.db.url,
    "select changes from audit_event where kind = 'certificate' and action = 'update' order by id desc limit 1",
  );
  t.same(audit!.changes, [{ field: 'description', old: 'Globex partner', new: 'Globex EDI 2026' }]);
});

t.test('download gives the certificate as PEM, never the key', async (t) => {
  const answer = await server.call('GET', `/api/v1/certificates/${acme}/download`);
  t.equal(answer.status, 200);
  t.equal(answer.headers['content-type'], 'application/x-pem-file');
  t.equal(answer.headers['content-disposition'], 'attachment; filename="as2.acme.example.pem"');
  t.equal(answer.raw.replace(/\r?\n/g, ''), f.read('rsa.crt').toString().replace(/\r?\n/g, ''));
  t.notOk(answer.raw.includes('PRIVATE KEY'));
  const missing = await server.call('GET', '/api/v1/certificates/99999/download');
  t.equal(missing.status, 404);
  t.same(missing.body.error, { code: 'NOT_FOUND', message: 'Certificate not found' });
});

t.test('delete removes a certificate no profile uses', async (t) => {
  const removed = await server.call('DELETE', `/api/v1/certificates/${hooli}`);
  t.equal(removed.status, 204);
  t.equal(removed.raw, '');
  const gone = await server.call('GET', `/api/v1/certificates/${hooli}`);
  t.same(gone.body, { data: null, error: { code: 'NOT_FOUND', message: 'Certificate not found' } });
  const again = await server.call('DELETE', `/api/v1/certificates/${hooli}`);
  t.equal(again.status, 404);
  const bad = await server.call('GET', '/api/v1/certificates/abc');
  t.equal(bad.status, 400);
  t.same(bad.body.error.details, { id: 'Must be a whole number' });
});

t.test('the OpenAPI document describes the certificate and AS2 profile endpoints', async (t) => {
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  const { parse } = await import('yaml');
  const answer = await server.call('GET', '/api/v1/openapi.yaml');
  const doc = parse(answer.raw);
  await t.resolves(SwaggerParser.validate(structuredClone(doc)));
  for (const path of [
    '/certificates',
    '/certificates/import',
    '/certificates/expiring',
    '/certificates/{id}',
    '/certificates/{id}/download',
    '/as2/local-profiles',
    '/as2/local-profiles/{id}',
    '/as2/remote-profiles',
    '/as2/remote-profiles/{id}',
  ]) {
    t.ok(doc.paths[path], path);
  }
  const upload = doc.paths['/certificates'].post;
  t.ok(upload.requestBody.content['multipart/form-data'].schema.properties.certificate);
  t.match(upload.responses['400'].description, /MISSING_HEADER/);
  t.ok(
    upload.responses['200'].content['application/json'].schema.properties.data,
    'the 200 answer is described',
  );
  t.ok(
    upload.responses['201'].content['application/json'].schema.properties.data.properties.fingerprint_sha256,
  );
  t.match(doc.paths['/certificates/{id}'].delete.responses['409'].description, /CERTIFICATE_IN_USE/);
});

t.test('filters with control characters are refused, not sent to the database', async (t) => {
  for (const path of ['/api/v1/certificates?q=a%00b', '/api/v1/organizations?q=%00']) {
    const answer = await server.call('GET', path);
    t.equal(answer.status, 400, path);
    t.same(answer.body.error.details, { q: 'Must not contain control characters' });
  }
});
