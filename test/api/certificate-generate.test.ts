// Covers POST /certificates/generate (each key type, self-signed and CSR, refusals that name the field and store nothing), certificate requests completed by a CA's certificate (and refused for another key's), and the PEM and DER export checked with openssl.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { issueByTestCa } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { startTestServer, type Answer } from '../helpers/server.js';

const server = await startTestServer(t);
const dir = mkdtempSync(path.join(tmpdir(), 'pier-generate-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

function openssl(args: string[], input?: Buffer | string): Buffer {
  return execFileSync('openssl', args, { cwd: dir, input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Every answer of this file, to check at the end that no private key was ever in one. */
const answers: Answer[] = [];
async function call(method: string, url: string, body?: unknown): Promise<Answer> {
  const answer = await server.call(method, url, body === undefined ? {} : { body });
  answers.push(answer);
  return answer;
}

async function counts(): Promise<{ certificates: number; requests: number }> {
  const [row] = await sql<{ c: number; r: number }>(
    server.db.url,
    'select (select count(*) from certificate)::int as c, (select count(*) from certificate_request)::int as r',
  );
  return { certificates: row!.c, requests: row!.r };
}

const subject = {
  common_name: 'as2.acme.example',
  organization: 'Acme',
  country: 'DE',
  email: 'edi@acme.example',
};

const keys = [
  [{ algorithm: 'rsa', bits: 2048 }, 'RSA', 2048, ''],
  [{ algorithm: 'rsa', bits: 3072 }, 'RSA', 3072, ''],
  [{ algorithm: 'rsa', bits: 4096 }, 'RSA', 4096, ''],
  [{ algorithm: 'ec', curve: 'P-256' }, 'EC', 256, 'prime256v1'],
  [{ algorithm: 'ec', curve: 'P-384' }, 'EC', 384, 'secp384r1'],
] as const;

for (const [key, algorithm, size, curve] of keys) {
  const label = `${algorithm} ${curve || size}`;
  t.test(`${label}: a self-signed certificate is stored with its key, as GET shows it`, async (t) => {
    const answer = await call('POST', '/api/v1/certificates/generate', {
      name: `Acme ${label}`,
      key,
      subject: { ...subject, common_name: `${label.replace(/\W/g, '')}.acme.example` },
      output: 'self-signed',
    });
    t.equal(answer.status, 201, answer.raw);
    const c = answer.body.data;
    t.match(c, {
      description: `Acme ${label}`,
      key_algorithm: algorithm,
      key_size: size,
      key_curve: curve,
      has_private_key: true,
      private_key_matches: true,
      self_signed: true,
      state: 'valid',
      subject: `emailAddress=edi@acme.example, CN=${label.replace(/\W/g, '')}.acme.example, O=Acme, C=DE`,
    });
    t.ok(c.days_remaining === 729 || c.days_remaining === 730, `valid for two years (${c.days_remaining})`);
    const got = await call('GET', `/api/v1/certificates/${c.id}`);
    t.same(got.body.data, c, 'the answer is the record as GET shows it');

    const pem = await call('GET', `/api/v1/certificates/${c.id}/download`);
    t.equal(pem.headers['content-type'], 'application/x-pem-file');
    writeFileSync(path.join(dir, 'exported.pem'), pem.bytes);
    t.equal(
      openssl(['verify', '-CAfile', 'exported.pem', 'exported.pem']).toString().trim(),
      'exported.pem: OK',
    );
    const der = await call('GET', `/api/v1/certificates/${c.id}/download?format=der`);
    t.equal(der.status, 200);
    t.equal(der.headers['content-type'], 'application/pkix-cert');
    t.match(String(der.headers['content-disposition']), /filename=".*\.cer"/);
    t.same(
      der.bytes,
      openssl(['x509', '-in', 'exported.pem', '-outform', 'DER']),
      'DER bytes as openssl writes them',
    );
    const fingerprint = openssl(['x509', '-inform', 'DER', '-noout', '-fingerprint', '-sha256'], der.bytes);
    t.equal(fingerprint.toString().trim().split('=')[1], c.fingerprint_sha256);
  });
}

t.test('an unknown download format is refused on format', async (t) => {
  const answer = await call('GET', '/api/v1/certificates/1/download?format=p7b');
  t.equal(answer.status, 400);
  t.same(answer.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: { format: 'Must be pem or der' },
  });
});

for (const [key, algorithm, size, curve] of [keys[0], keys[4]]) {
  const label = `${algorithm} ${curve || size}`;
  t.test(
    `${label}: a CSR waits for the CA's certificate, which is stored with the request's key`,
    async (t) => {
      const before = await counts();
      const made = await call('POST', '/api/v1/certificates/generate', {
        name: `CSR ${label}`,
        key,
        subject: { common_name: 'pier.example', organization: 'Pier Test', organizational_unit: 'EDI' },
        output: 'csr',
      });
      t.equal(made.status, 201, made.raw);
      const r = made.body.data;
      t.match(r, {
        description: `CSR ${label}`,
        state: 'awaiting_certificate',
        common_name: 'pier.example',
        subject: 'CN=pier.example, OU=EDI, O=Pier Test',
        key_algorithm: algorithm,
        key_size: size,
        key_curve: curve,
        has_private_key: true,
      });
      t.same(await counts(), { certificates: before.certificates, requests: before.requests + 1 });
      writeFileSync(path.join(dir, 'r.csr'), r.csr_pem);
      t.match(
        openssl(['req', '-in', 'r.csr', '-verify', '-noout', '-text']).toString(),
        'Subject: O = Pier Test, OU = EDI, CN = pier.example',
      );
      const download = await call('GET', `/api/v1/certificate-requests/${r.id}/csr`);
      t.equal(download.headers['content-type'], 'application/pkcs10');
      t.equal(download.raw, r.csr_pem);
      const listed = await call('GET', '/api/v1/certificate-requests');
      t.ok(listed.body.data.certificate_requests.some((x: { id: number }) => x.id === r.id));
      t.same((await call('GET', `/api/v1/certificate-requests/${r.id}`)).body.data, r);

      // A CA issues it; a certificate for another key is refused first, and nothing changes.
      issueByTestCa(dir, 'r.csr', '/CN=Test CA', 4242);
      const wrong = await call('POST', `/api/v1/certificate-requests/${r.id}/certificate`, {
        certificate: openssl(['x509', '-in', 'ca.crt']).toString(),
      });
      t.equal(wrong.status, 400);
      t.same(wrong.body.error, {
        code: 'INVALID_INPUT',
        message: 'Validation failed',
        details: {
          certificate: `The certificate is for another key: it does not belong to this request's ${algorithm} key. Send the CA the CSR of this request, or upload the certificate issued for it`,
        },
      });
      t.same(await counts(), { certificates: before.certificates, requests: before.requests + 1 });

      const chain = `${openssl(['x509', '-in', 'issued.crt']).toString()}${openssl(['x509', '-in', 'ca.crt']).toString()}`;
      const done = await call('POST', `/api/v1/certificate-requests/${r.id}/certificate`, {
        certificate: chain,
      });
      t.equal(done.status, 201, done.raw);
      t.match(done.body.data, {
        description: `CSR ${label}`,
        issuer: 'CN=Test CA',
        serial_number: '1092',
        has_private_key: true,
        private_key_matches: true,
        self_signed: false,
      });
      t.same(await counts(), { certificates: before.certificates + 1, requests: before.requests });
      t.equal((await call('GET', `/api/v1/certificate-requests/${r.id}`)).status, 404);
    },
  );
}

t.test('a request can be deleted with its key', async (t) => {
  const made = await call('POST', '/api/v1/certificates/generate', {
    name: 'Throwaway',
    key: { algorithm: 'ec', curve: 'P-256' },
    subject: { common_name: 'gone.example' },
    output: 'csr',
  });
  const gone = await call('DELETE', `/api/v1/certificate-requests/${made.body.data.id}`);
  t.equal(gone.status, 204);
  const [row] = await sql(server.db.url, 'select count(*)::int as n from certificate_request where id = $1', [
    made.body.data.id,
  ]);
  t.equal(row!.n, 0);
  const again = await call('DELETE', `/api/v1/certificate-requests/${made.body.data.id}`);
  t.same(again.body.error, { code: 'NOT_FOUND', message: 'Certificate request not found' });
});

t.test('bad bodies are refused with the property named, and nothing is stored', async (t) => {
  const good = {
    name: 'x',
    key: { algorithm: 'ec', curve: 'P-256' },
    subject: { common_name: 'x' },
    output: 'csr',
  };
  const cases: [string, unknown, Record<string, string>][] = [
    [
      'empty object',
      {},
      {
        name: 'Required',
        key: 'Must be rsa or ec',
        subject: 'Required',
        output: 'Must be self-signed or csr',
      },
    ],
    [
      'blank name',
      { ...good, name: '  ' },
      { name: 'Required: the description the certificate is listed by' },
    ],
    [
      'RSA 1024',
      { ...good, key: { algorithm: 'rsa', bits: 1024 } },
      { 'key.bits': 'Must be 2048, 3072 or 4096' },
    ],
    [
      'RSA bits as text',
      { ...good, key: { algorithm: 'rsa', bits: '2048' } },
      { 'key.bits': 'Must be 2048, 3072 or 4096' },
    ],
    [
      'curve P-521',
      { ...good, key: { algorithm: 'ec', curve: 'P-521' } },
      { 'key.curve': 'Must be P-256 or P-384' },
    ],
    ['DSA', { ...good, key: { algorithm: 'dsa', bits: 2048 } }, { 'key.algorithm': 'Must be rsa or ec' }],
    [
      'EC with bits',
      { ...good, key: { algorithm: 'ec', curve: 'P-256', bits: 256 } },
      { 'key.bits': 'Unknown property' },
    ],
    ['no common name', { ...good, subject: { organization: 'Acme' } }, { 'subject.common_name': 'Required' }],
    [
      'empty common name',
      { ...good, subject: { common_name: '' } },
      { 'subject.common_name': 'Required: the name partners know this key by' },
    ],
    [
      'country of three letters',
      { ...good, subject: { common_name: 'x', country: 'DEU' } },
      { 'subject.country': 'Use the two capital letters of the country code (ISO 3166), e.g. DE' },
    ],
    [
      'country in lower case',
      { ...good, subject: { common_name: 'x', country: 'de' } },
      { 'subject.country': 'Use the two capital letters of the country code (ISO 3166), e.g. DE' },
    ],
    [
      'e-mail without @',
      { ...good, subject: { common_name: 'x', email: 'edi.acme.example' } },
      { 'subject.email': 'Must be an e-mail address (ASCII)' },
    ],
    [
      'common name too long',
      { ...good, subject: { common_name: 'a'.repeat(65) } },
      { 'subject.common_name': 'Must be at most 64 characters' },
    ],
    [
      'control character',
      { ...good, subject: { common_name: 'a\u0000b' } },
      { 'subject.common_name': 'Must not contain control characters' },
    ],
    [
      'unknown subject field',
      { ...good, subject: { common_name: 'x', locality: 'Berlin' } },
      { 'subject.locality': 'Unknown property' },
    ],
    ['valid_days 0', { ...good, valid_days: 0 }, { valid_days: 'Must be at least 1 day' }],
    ['valid_days 1.5', { ...good, valid_days: 1.5 }, { valid_days: 'Must be a whole number of days' }],
    [
      'valid_days of eleven years',
      { ...good, valid_days: 4015 },
      { valid_days: 'Must be at most 3650 days (ten years)' },
    ],
    ['output pkcs12', { ...good, output: 'pkcs12' }, { output: 'Must be self-signed or csr' }],
    ['unknown property', { ...good, password: 'x' }, { password: 'Unknown property' }],
  ];
  const before = await counts();
  for (const [what, body, details] of cases) {
    const answer = await call('POST', '/api/v1/certificates/generate', body);
    t.equal(answer.status, 400, what);
    t.same(answer.body.error, { code: 'INVALID_INPUT', message: 'Validation failed', details }, what);
  }
  const list = await call('POST', '/api/v1/certificates/generate', [good]);
  t.same(list.body.error, {
    code: 'INVALID_INPUT',
    message: 'Invalid request body',
    details: { body: 'Expected a JSON object, got a list' },
  });
  t.same(await counts(), before, 'nothing stored');
});

t.test('no answer ever held a private key', async (t) => {
  t.ok(answers.length > 20);
  for (const a of answers) t.notMatch(a.raw, /PRIVATE KEY|"private_key"\s*:\s*"/, 'no key in the answer');
});
