// Covers POST /certificates and /certificates/import with real openssl files: every format stored or explained, dedupe across formats (a stored certificate is 409 even with its key), keys added later by the import, import tokens, keys never shown, bad input.
import { Readable } from 'node:stream';
import t from 'tap';
import { makeStandardFixtures, password } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import type { Answer } from '../helpers/server.js';
import { startTestServer } from '../helpers/server.js';
import { multipart, uploadCertificate, type PartValue } from '../helpers/upload.js';
import { SharedClock } from '../../protocol/clock.js';

const clock = SharedClock.ahead(0);
const server = await startTestServer(t, { clock });
const f = makeStandardFixtures(t);

/** Every answer of this file, to check at the end that no private key was ever in one. */
const answers: Answer[] = [];
async function upload(parts: Record<string, PartValue>, headers?: Record<string, string>) {
  const answer = await uploadCertificate(server, parts, headers);
  answers.push(answer);
  return answer;
}
async function call(method: string, url: string, body?: unknown, token?: string) {
  const answer = await server.call(method, url, { body, ...(token ? { token } : {}) });
  answers.push(answer);
  return answer;
}

function fingerprint(file: string): string {
  return f.openssl(`x509 -in ${file} -noout -fingerprint -sha256`).trim().split('=')[1]!;
}
async function storedCount(): Promise<number> {
  const [row] = await sql<{ n: string }>(server.db.url, 'select count(*) as n from certificate');
  return Number(row!.n);
}

const rsaFingerprint = fingerprint('rsa.crt');
const ecFingerprint = fingerprint('ec.crt');

t.test('a PEM certificate with a description is stored and described as openssl reads it', async (t) => {
  const answer = await upload({ certificate: f.read('rsa.crt'), description: 'Acme AS2 2027' });
  t.equal(answer.status, 201);
  const c = answer.body.data;
  t.equal(c.description, 'Acme AS2 2027');
  t.equal(c.common_name, 'as2.acme.example');
  t.equal(c.subject, 'CN=as2.acme.example, O=Acme\\, Inc., C=DE');
  t.equal(c.issuer, c.subject);
  t.equal(c.serial_number, f.openssl('x509 -in rsa.crt -noout -serial').trim().split('=')[1]);
  t.equal(
    c.not_after,
    new Date(f.openssl('x509 -in rsa.crt -noout -enddate').trim().split('=')[1]!).toISOString(),
  );
  t.equal(
    c.not_before,
    new Date(f.openssl('x509 -in rsa.crt -noout -startdate').trim().split('=')[1]!).toISOString(),
  );
  t.match(c, {
    state: 'valid',
    key_algorithm: 'RSA',
    key_size: 2048,
    key_curve: '',
    signature_algorithm: 'sha256WithRSAEncryption',
    key_usage: ['digitalSignature', 'keyEncipherment'],
    extended_key_usage: ['emailProtection', 'clientAuth'],
    subject_alt_names: ['DNS:as2.acme.example', 'email:edi@acme.example', 'IP:127.0.0.1'],
    self_signed: true,
    has_private_key: false,
    private_key_matches: false,
  });
  t.ok(c.days_remaining === 364 || c.days_remaining === 365, `days_remaining ${c.days_remaining}`);
  t.equal(c.fingerprint_sha256, rsaFingerprint);
  t.equal(c.fingerprint_sha1, f.openssl('x509 -in rsa.crt -noout -fingerprint -sha1').trim().split('=')[1]);
  const [row] = await sql(server.db.url, 'select sha256, private_key from certificate where id = $1', [c.id]);
  t.equal(row!.sha256, rsaFingerprint.replace(/:/g, '').toLowerCase());
  t.equal(row!.private_key, null);
  const got = await call('GET', `/api/v1/certificates/${c.id}`);
  t.same(got.body.data, c, 'the same shape as GET');
});

t.test('the same certificate in another format is 409 CERTIFICATE_EXISTS with existing_id', async (t) => {
  const [stored] = await sql<{ id: number }>(server.db.url, 'select id from certificate');
  for (const [name, parts] of [
    ['DER', { certificate: f.read('rsa.der'), description: 'again' }],
    ['pasted PEM text', { certificate: f.read('rsa.crt').toString('utf8'), description: 'again' }],
  ] as const) {
    const answer = await upload(parts);
    t.equal(answer.status, 409, name);
    t.equal(answer.body.error.code, 'CERTIFICATE_EXISTS');
    t.equal(
      answer.body.error.message,
      `This certificate is already stored as certificate ${stored!.id} (Acme AS2 2027)`,
    );
    t.same(answer.body.error.details, { existing_id: stored!.id });
  }
  t.equal(await storedCount(), 1);
});

t.test(
  'a stored certificate uploaded again with its key is 409 in every format and changes nothing',
  async (t) => {
    const [stored] = await sql<{ id: number }>(server.db.url, 'select id from certificate');
    const row = () => sql(server.db.url, 'select * from certificate where id = $1', [stored!.id]);
    const auditCount = async () =>
      (await sql(server.db.url, "select id from audit_event where kind = 'certificate'")).length;
    const [rowBefore, auditBefore] = [await row(), await auditCount()];
    for (const [name, parts] of [
      ['PKCS#12 with key', { certificate: f.read('modern.p12'), password, description: 'again' }],
      ['PKCS#12 (legacy) with key', { certificate: f.read('legacy.p12'), password, description: 'again' }],
      [
        'PEM with key',
        { certificate: f.read('rsa.crt'), private_key: f.read('rsa.key'), description: 'again' },
      ],
      [
        'PEM certificate and key in one file',
        { certificate: Buffer.concat([f.read('rsa.crt'), f.read('rsa.key')]), description: 'again' },
      ],
      [
        'DER with a DER key',
        { certificate: f.read('rsa.der'), private_key: f.read('rsa-pkcs8.der'), description: 'again' },
      ],
    ] as const) {
      const answer = await upload(parts);
      t.equal(answer.status, 409, name);
      t.same(
        answer.body.error,
        {
          code: 'CERTIFICATE_EXISTS',
          message: `This certificate is already stored as certificate ${stored!.id} (Acme AS2 2027); to add its private key, use the import: upload the file without a description, then import the certificate with the import token`,
          details: { existing_id: stored!.id },
        },
        name,
      );
    }
    t.same(await row(), rowBefore, 'the stored row is unchanged');
    t.equal(await storedCount(), 1);
    t.equal(await auditCount(), auditBefore, 'nothing audited');
  },
);

t.test('the import adds the key to a stored certificate; a second key is refused', async (t) => {
  const [stored] = await sql<{ id: number }>(server.db.url, 'select id from certificate');
  const found = await upload({ certificate: f.read('modern.p12'), password });
  t.equal(found.status, 200);
  t.match(found.body.data.found.certificates, [{ existing_id: stored!.id, adds_private_key: true }]);
  const added = await call('POST', '/api/v1/certificates/import', {
    import_token: found.body.data.import_token,
    certificates: [{ index: 0, description: 'ignored' }],
  });
  t.equal(added.status, 201);
  t.equal(added.body.data.certificates.length, 1);
  const [record] = added.body.data.certificates;
  t.equal(record.id, stored!.id, 'nothing new was created');
  t.equal(record.description, 'Acme AS2 2027', 'the stored description is kept');
  t.equal(record.has_private_key, true);
  t.equal(record.private_key_matches, true);
  t.equal(await storedCount(), 1);
  const [audit] = await sql<{ changes: unknown[] }>(
    server.db.url,
    "select changes from audit_event where kind = 'certificate' and action = 'update' order by id desc limit 1",
  );
  t.same(audit!.changes, [
    { field: 'has_private_key', old: false, new: true },
    { field: 'private_key', secret: true },
  ]);

  const again = await upload({ certificate: f.read('legacy.p12'), password, description: 'again' });
  t.equal(again.status, 409);
  t.equal(
    again.body.error.message,
    `This certificate is already stored as certificate ${stored!.id} (Acme AS2 2027), with a private key`,
  );
  t.same(again.body.error.details, { existing_id: stored!.id });
  const foundAgain = await upload({ certificate: f.read('legacy.p12'), password });
  t.match(foundAgain.body.data.found.certificates, [{ existing_id: stored!.id, adds_private_key: false }]);
  const importedAgain = await call('POST', '/api/v1/certificates/import', {
    import_token: foundAgain.body.data.import_token,
    certificates: [{ index: 0 }],
  });
  t.equal(importedAgain.status, 409);
  t.same(importedAgain.body.error.details, { existing_id: stored!.id, index: 0 });
});

t.test('private keys are sealed at rest and open to the key that was uploaded', async (t) => {
  const [row] = await sql<{ private_key: string }>(server.db.url, 'select private_key from certificate');
  const pkcs8 = f.read('rsa-pkcs8.der');
  t.match(row!.private_key, /^v1:/);
  t.notOk(row!.private_key.includes(pkcs8.toString('base64').slice(100, 160)), 'not the key in base64');
  t.notOk(row!.private_key.includes('PRIVATE KEY'));
  t.ok(server.ctx.secrets.open(row!.private_key).equals(pkcs8), 'decrypts to the PKCS#8 key');
});

t.test('every format is read: what an upload without description finds', async (t) => {
  const cases: [
    string,
    Record<string, PartValue>,
    { certs: string[]; keys: number; pairs: (number | null)[] },
  ][] = [
    [
      'PEM certificate',
      { certificate: f.read('rsa.crt') },
      { certs: [rsaFingerprint], keys: 0, pairs: [null] },
    ],
    [
      'DER certificate',
      { certificate: f.read('rsa.der') },
      { certs: [rsaFingerprint], keys: 0, pairs: [null] },
    ],
    [
      'PEM bundle',
      { certificate: f.read('bundle.pem') },
      { certs: [rsaFingerprint, ecFingerprint], keys: 0, pairs: [null, null] },
    ],
    [
      'PKCS#7 PEM (.p7b)',
      { certificate: f.read('chain.p7b') },
      { certs: [rsaFingerprint, ecFingerprint], keys: 0, pairs: [null, null] },
    ],
    [
      'PKCS#7 DER (.p7c)',
      { certificate: { file: f.read('chain-der.p7b'), name: 'chain.p7c' } },
      { certs: [rsaFingerprint, ecFingerprint], keys: 0, pairs: [null, null] },
    ],
    [
      'PKCS#12 modern (AES, PBKDF2)',
      { certificate: f.read('modern.p12'), password },
      { certs: [rsaFingerprint], keys: 1, pairs: [0] },
    ],
    [
      'PKCS#12 legacy (RC2, 3DES)',
      { certificate: f.read('legacy.p12'), password },
      { certs: [rsaFingerprint], keys: 1, pairs: [0] },
    ],
    [
      'PKCS#12 without password',
      { certificate: f.read('nopass.p12') },
      { certs: [rsaFingerprint], keys: 1, pairs: [0] },
    ],
    ['EC certificate', { certificate: f.read('ec.crt') }, { certs: [ecFingerprint], keys: 0, pairs: [null] }],
    [
      'PKCS#12 with an EC key',
      { certificate: f.read('ec.p12'), password },
      { certs: [ecFingerprint], keys: 1, pairs: [0] },
    ],
    ['a key alone', { certificate: f.read('rsa.key') }, { certs: [], keys: 1, pairs: [] }],
  ];
  for (const [key, file] of [
    ['PKCS#8 PEM', 'rsa.key'],
    ['PKCS#1 PEM', 'rsa-pkcs1.pem'],
    ['PKCS#1 DER', 'rsa-pkcs1.der'],
    ['PKCS#8 DER', 'rsa-pkcs8.der'],
    ['encrypted PKCS#8 PEM', 'rsa-enc.pem'],
    ['encrypted PKCS#8 DER', 'rsa-enc.der'],
  ] as const) {
    cases.push([
      `certificate with a ${key} key`,
      { certificate: f.read('rsa.crt'), private_key: f.read(file), password },
      { certs: [rsaFingerprint], keys: 1, pairs: [0] },
    ]);
  }
  for (const [key, file] of [
    ['SEC1 PEM', 'ec.key'],
    ['SEC1 DER', 'ec-sec1.der'],
  ] as const) {
    cases.push([
      `EC certificate with a ${key} key`,
      { certificate: f.read('ec.crt'), private_key: f.read(file) },
      { certs: [ecFingerprint], keys: 1, pairs: [0] },
    ]);
  }
  for (const [name, parts, expected] of cases) {
    const answer = await upload(parts);
    t.equal(answer.status, 200, name);
    const found = answer.body.data.found;
    t.same(
      found.certificates.map((c: { fingerprint_sha256: string }) => c.fingerprint_sha256),
      expected.certs,
      `${name}: certificates`,
    );
    t.equal(found.keys.length, expected.keys, `${name}: keys`);
    t.same(
      found.certificates.map((c: { key_index: number | null }) => c.key_index),
      expected.pairs,
      `${name}: pairing`,
    );
    t.match(answer.body.data.import_token, /^[A-Za-z0-9_-]{43}$/);
  }
  const ec = await upload({ certificate: f.read('ec.crt'), private_key: f.read('ec.key') });
  t.match(ec.body.data.found.certificates[0], {
    key_algorithm: 'EC',
    key_size: 256,
    key_curve: 'prime256v1',
    signature_algorithm: 'ecdsa-with-SHA256',
    state: 'expiring',
    existing_id: null,
    adds_private_key: false,
  });
  t.same(ec.body.data.found.keys, [
    { index: 0, key_algorithm: 'EC', key_size: 256, certificate_indexes: [0] },
  ]);
  const named = await upload({ certificate: f.read('modern.p12'), password });
  t.equal(named.body.data.found.certificates[0].friendly_name, 'Acme signing');
  t.equal(named.body.data.found.certificates[0].existing_id !== null, true, 'marks a stored certificate');
  const keyOnly = await upload({ certificate: f.read('rsa.key') });
  t.same(keyOnly.body.data.notes, [
    'No certificate was found. A private key is stored only with its certificate: upload both together',
  ]);
  t.equal(await storedCount(), 1, 'finding stores nothing');
});

t.test('import stores the chosen certificates with their keys, then the token is used up', async (t) => {
  f.selfSigned('partner1', '/O=Initech/CN=Initech AS2');
  f.selfSigned('partner2', '/O=Umbrella/CN=Umbrella AS2');
  const bundle = Buffer.concat([f.read('partner1.crt'), f.read('partner1.key'), f.read('partner2.crt')]);
  const found = await upload({ certificate: bundle });
  t.equal(found.status, 200);
  t.same(
    found.body.data.found.certificates.map((c: { common_name: string; key_index: number | null }) => [
      c.common_name,
      c.key_index,
    ]),
    [
      ['Initech AS2', 0],
      ['Umbrella AS2', null],
    ],
  );
  const token = found.body.data.import_token;
  const imported = await call('POST', '/api/v1/certificates/import', {
    import_token: token,
    certificates: [{ index: 1 }, { index: 0, description: 'Initech signing' }],
  });
  t.equal(imported.status, 201);
  t.match(imported.body.data.certificates, [
    { description: 'Umbrella AS2', common_name: 'Umbrella AS2', has_private_key: false },
    { description: 'Initech signing', has_private_key: true, private_key_matches: true },
  ]);
  const listed = await call('GET', `/api/v1/certificates/${imported.body.data.certificates[1].id}`);
  t.same(listed.body.data, imported.body.data.certificates[1], 'the same shape as GET');
  const reused = await call('POST', '/api/v1/certificates/import', {
    import_token: token,
    certificates: [{ index: 0 }],
  });
  t.equal(reused.status, 400);
  t.same(reused.body.error.details, { import_token: 'Unknown import token; upload the file again' });
});

t.test('an import stores all or none', async (t) => {
  f.selfSigned('fresh', '/CN=Fresh Partner');
  const before = await storedCount();
  const found = await upload({ certificate: Buffer.concat([f.read('fresh.crt'), f.read('rsa.crt')]) });
  const [stored] = await sql<{ id: number }>(
    server.db.url,
    'select id from certificate where common_name = $1',
    ['as2.acme.example'],
  );
  t.equal(found.body.data.found.certificates[1].existing_id, stored!.id);
  const refused = await call('POST', '/api/v1/certificates/import', {
    import_token: found.body.data.import_token,
    certificates: [{ index: 0 }, { index: 1 }],
  });
  t.equal(refused.status, 409);
  t.equal(refused.body.error.code, 'CERTIFICATE_EXISTS');
  t.same(refused.body.error.details, { existing_id: stored!.id, index: 1 });
  t.equal(await storedCount(), before, 'the first certificate was not stored either');
  const retried = await call('POST', '/api/v1/certificates/import', {
    import_token: found.body.data.import_token,
    certificates: [{ index: 0 }],
  });
  t.equal(retried.status, 201, 'the token survives a refused import');
  t.equal(await storedCount(), before + 1);
});

t.test('import tokens last ten minutes and belong to the uploader', async (t) => {
  f.selfSigned('late', '/CN=Late Partner');
  const found = await upload({ certificate: f.read('late.crt') });
  const token = found.body.data.import_token;
  t.equal(new Date(found.body.data.expires_at).getTime() - clock.now().getTime() <= 10 * 60 * 1000, true);
  const other = await server.newToken('someone-else');
  const stranger = await call(
    'POST',
    '/api/v1/certificates/import',
    { import_token: token, certificates: [{ index: 0 }] },
    other,
  );
  t.equal(stranger.status, 400);
  t.same(stranger.body.error.details, { import_token: 'Unknown import token; upload the file again' });

  for (const [body, details] of [
    [
      { import_token: token, certificates: [{ index: 1 }] },
      { certificates: 'Index 1 is not in the upload: it found 1 certificate (indexes from 0)' },
    ],
    [
      { import_token: token, certificates: [{ index: 0 }, { index: 0 }] },
      { certificates: 'Index 0 is listed twice' },
    ],
    [{ import_token: token, certificates: [] }, { certificates: 'Must have at least 1 entries' }],
    [{ certificates: [{ index: 0 }] }, { import_token: 'Required' }],
  ] as const) {
    const bad = await call('POST', '/api/v1/certificates/import', body);
    t.equal(bad.status, 400);
    t.same(bad.body.error, { code: 'INVALID_INPUT', message: 'Validation failed', details });
  }

  clock.follow(10 * 60 * 1000 + 1000);
  try {
    const late = await call('POST', '/api/v1/certificates/import', {
      import_token: token,
      certificates: [{ index: 0 }],
    });
    t.equal(late.status, 400);
    t.same(late.body.error.details, {
      import_token: 'The import token has expired (it lasts 10 minutes); upload the file again',
    });
  } finally {
    clock.follow(0);
  }
  const [left] = await sql(
    server.db.url,
    "select count(*)::int as n from certificate where common_name = 'Late Partner'",
  );
  t.equal(left!.n, 0);
});

t.test('a key that does not belong to the certificate is refused, and nothing is stored', async (t) => {
  f.selfSigned('mismatch', '/CN=Mismatch Example');
  const before = await storedCount();
  const answer = await upload({
    certificate: f.read('mismatch.crt'),
    private_key: f.read('other.key'),
    description: 'wrong key on purpose',
  });
  t.equal(answer.status, 400);
  t.same(answer.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: {
      private_key:
        'This RSA private key does not belong to the certificate (their public keys differ): choose the key that was made with this certificate, or upload the certificate alone',
    },
  });
  t.equal(await storedCount(), before);
  const found = await upload({ certificate: f.read('rsa.crt'), private_key: f.read('other.key') });
  t.same(found.body.data.notes, ['The RSA private key 0 belongs to none of the certificates found']);
  t.same(found.body.data.found.keys[0].certificate_indexes, []);
});

t.test('bad input is a 4xx that says what is wrong and changes nothing', async (t) => {
  const before = await storedCount();
  const der = f.read('rsa.der');
  const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(64, 7)]);
  const csr = f.openssl('req -new -key rsa.key -subj /CN=csr');
  const cases: [string, Record<string, PartValue>, Record<string, string>][] = [
    [
      'truncated DER',
      { certificate: der.subarray(0, der.length - 100), description: 'x' },
      {
        certificate:
          'The certificate file is cut short: it is binary (DER) data that ends before its content does; upload the complete file',
      },
    ],
    [
      'a PNG renamed .pem',
      { certificate: { file: png, name: 'partner.pem' }, description: 'x' },
      { certificate: 'The certificate file is a PNG image, not a certificate' },
    ],
    [
      'PKCS#12 with a wrong password',
      { certificate: f.read('modern.p12'), password: 'not-the-password' },
      { password: 'The password does not open this PKCS#12 file' },
    ],
    [
      'PKCS#12 without its password',
      { certificate: f.read('legacy.p12') },
      { password: 'This PKCS#12 file is protected by a password; enter it' },
    ],
    [
      'encrypted key without password',
      { certificate: f.read('rsa.crt'), private_key: f.read('rsa-enc.pem') },
      { password: 'The private key at line 1 is encrypted; enter its password' },
    ],
    [
      'encrypted key with a wrong password',
      { certificate: f.read('rsa.crt'), private_key: f.read('rsa-enc.der'), private_key_password: 'nope' },
      { private_key_password: 'The password does not open the private key' },
    ],
    [
      'text that is no certificate',
      { certificate: 'Dear partner, please find our certificate attached.' },
      {
        certificate:
          'The certificate file is not a certificate: it holds neither PEM text (-----BEGIN CERTIFICATE-----) nor a DER certificate, PKCS#7, PKCS#12 or key file',
      },
    ],
    [
      'a certificate signing request',
      { certificate: csr },
      {
        certificate:
          'The file holds no certificate or private key: Skipped the certificate signing request (CSR) at line 1: it is not a certificate; ask for the signed certificate',
      },
    ],
    [
      'no certificate part',
      { description: 'x' },
      { certificate: 'Required: a certificate, bundle, PKCS#12 file or key, as a file or pasted text' },
    ],
    [
      'an unknown part',
      { certificate: f.read('rsa.crt'), colour: 'blue' },
      { colour: 'Unknown part; send certificate, private_key, password, private_key_password, description' },
    ],
    [
      'a description with control characters',
      { certificate: f.read('rsa.crt'), description: 'bad\u0007bell' },
      { description: 'Must not contain control characters' },
    ],
  ];
  for (const [name, parts, details] of cases) {
    const answer = await upload(parts);
    t.equal(answer.status, 400, name);
    t.same(answer.body.error, { code: 'INVALID_INPUT', message: 'Validation failed', details }, name);
    t.notOk(answer.raw.includes('not-the-password'), `${name}: the password is not echoed`);
  }

  const started = Date.now();
  const many = await upload({ certificate: Buffer.from(f.read('rsa.crt').toString().repeat(5000)) });
  t.equal(many.status, 400);
  t.same(many.body.error.details, {
    certificate:
      'The certificate file holds 5000 PEM blocks; at most 1000 can be uploaded at once. Split it into smaller files',
  });
  t.ok(Date.now() - started < 5000, `5,000 certificates answered in ${Date.now() - started} ms`);

  const huge = await upload({ certificate: Buffer.alloc(20 * 1024 * 1024 + 1, 0x41) });
  t.equal(huge.status, 413);
  t.same(huge.body.error, {
    code: 'PAYLOAD_TOO_LARGE',
    message: 'The upload is larger than the limit of 20 MiB',
  });

  const { payload, contentType } = await multipart({ certificate: Buffer.alloc(20 * 1024 * 1024 + 1, 0x41) });
  const chunked = await server.app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: {
      authorization: `Bearer ${server.token}`,
      'content-type': contentType,
      'x-requested-with': 'XMLHttpRequest',
      'transfer-encoding': 'chunked',
    },
    payload: Readable.from([payload.subarray(0, 1000), payload.subarray(1000)]),
  });
  t.equal(chunked.statusCode, 413, 'also when the length is not declared (chunked)');
  t.equal(JSON.parse(chunked.body).error.code, 'PAYLOAD_TOO_LARGE');

  for (const body of [
    'no parts at all',
    '--b\r\nContent-Disposition: form-data; name="certificate"\r\n\r\ncut',
  ]) {
    const broken = await server.call('POST', '/api/v1/certificates', {
      payload: body,
      headers: { 'content-type': 'multipart/form-data; boundary=b', 'x-requested-with': 'XMLHttpRequest' },
    });
    t.equal(broken.status, 400, 'a malformed multipart body');
    t.equal(broken.body.error.message, 'Invalid request body');
    t.match(broken.body.error.details.body, /^The multipart form cannot be read: /);
  }

  const noHeader = await upload({ certificate: f.read('rsa.crt'), description: 'x' }, {});
  t.equal(noHeader.status, 400);
  t.equal(noHeader.body.error.code, 'MISSING_HEADER');
  const json = await call('POST', '/api/v1/certificates', { certificate: 'x' });
  t.equal(json.status, 415);
  t.equal(json.headers.accept, 'multipart/form-data');
  t.equal(await storedCount(), before, 'nothing was stored');
});

t.test('no answer of this file ever carried a private key', async (t) => {
  const secrets = [
    f.read('rsa-pkcs8.der').toString('base64').slice(200, 260),
    f.read('rsa-pkcs1.der').toString('base64').slice(200, 260),
    f.read('other.key').toString().split('\n')[5]!,
    f.read('partner1.key').toString().split('\n')[5]!,
    password,
  ];
  t.ok(answers.length > 40, `${answers.length} answers checked`);
  for (const answer of answers) {
    t.notOk(/PRIVATE KEY/.test(answer.raw), 'no PEM key');
    for (const s of secrets)
      if (answer.raw.includes(s)) t.fail(`an answer holds key material: ${answer.raw.slice(0, 200)}`);
  }
});
