// Covers AS2 profiles (docs/api/as2-profiles.md, docs/api/conventions.md#errors): local and remote profiles, secure defaults, certificate rules, rollover lists, write-only secrets, the endpoint rule, 409s, and certificates refused deletion while in use.
import pg from 'pg';
import t from 'tap';
import { signingAlgorithms } from '../../api/schemas/as2-profile.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';
import { uploadCertificate } from '../helpers/upload.js';

const server = await startTestServer(t);
const f = makeFixtures(t);

async function store(name: string, withKey: boolean, keyFile?: string): Promise<number> {
  const answer = await uploadCertificate(server, {
    certificate: f.read(`${name}.crt`),
    ...(withKey ? { private_key: f.read(keyFile ?? `${name}.key`) } : {}),
    description: name,
  });
  if (answer.status !== 201) throw new Error(`upload of ${name} failed: ${answer.raw}`);
  return answer.body.data.id as number;
}
async function party(kind: 'organizations' | 'partners', name: string): Promise<number> {
  const answer = await server.call('POST', `/api/v1/${kind}`, { body: { name } });
  return answer.body.data.id as number;
}

for (const name of ['ours', 'ours-next', 'globex', 'globex-next', 'nokey', 'mismatch']) {
  f.selfSigned(name, `/O=${name}/CN=${name}.example`);
}
f.openssl(
  'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ec.key -out ec.crt -subj /CN=ec.example',
);
f.openssl(
  'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-384 -nodes -keyout ec384.key -out ec384.crt -subj /CN=ec384.example',
);
// A curve CMS key agreement is not done on (Bitcoin's), and a key that agrees no keys at all.
f.openssl(
  'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:secp256k1 -nodes -keyout k1.key -out k1.crt -subj /CN=k1.example',
);
f.openssl('req -x509 -newkey ed25519 -nodes -keyout ed.key -out ed.crt -subj /CN=ed.example');
const ours = await store('ours', true);
const oursNext = await store('ours-next', true);
const globexCert = await store('globex', false);
const globexNext = await store('globex-next', false);
const noKey = await store('nokey', false);
// Uploads refuse a key of another certificate now; a row stored before that rule holds one
// (another certificate's sealed key, as such a row has it).
const mismatch = await store('mismatch', false);
await sql(
  server.db.url,
  'update certificate set private_key = (select private_key from certificate where id = $2), private_key_matches = false where id = $1',
  [mismatch, ours],
);
const ecWithKey = await store('ec', true);
const ec384 = await store('ec384', true);
const secp256k1 = await store('k1', true);
const ed25519 = await store('ed', true);
const encryptionKeys =
  'an RSA certificate or an EC certificate on P-256, P-384, P-521, brainpoolP256r1, brainpoolP384r1, brainpoolP512r1';

const acme = await party('organizations', 'acme');
const initech = await party('organizations', 'initech');
const globex = await party('partners', 'globex');
const umbrella = await party('partners', 'umbrella');

const invalid = (details: Record<string, string>) => ({
  code: 'INVALID_INPUT',
  message: 'Validation failed',
  details,
});

t.test('local profile: create with defaults, read, list, 409 for a second one', async (t) => {
  const made = await server.call('POST', '/api/v1/as2/local-profiles', {
    body: { local_organization_id: acme, as2id: 'ACME-AS2', signing_certificate_id: ours },
  });
  t.equal(made.status, 201);
  t.match(made.body.data, {
    local_organization_id: acme,
    as2id: 'ACME-AS2',
    signing_certificate_id: ours,
    decryption_certificate_ids: [ours],
    async_mdn_url: '',
  });
  const got = await server.call('GET', `/api/v1/as2/local-profiles/${acme}`);
  t.same(got.body.data, made.body.data);
  const list = await server.call('GET', '/api/v1/as2/local-profiles');
  t.same(list.body.data, { profiles: [made.body.data], total: 1, limit: 20, offset: 0 });

  const second = await server.call('POST', '/api/v1/as2/local-profiles', {
    body: { local_organization_id: acme, as2id: 'ACME-2', signing_certificate_id: ours },
  });
  t.equal(second.status, 409);
  t.same(second.body.error, {
    code: 'CONFLICT',
    message: 'Organization acme already has an AS2 profile',
    details: { local_organization_id: 'Organization acme already has an AS2 profile' },
  });
  const sameId = await server.call('POST', '/api/v1/as2/local-profiles', {
    body: { local_organization_id: initech, as2id: 'ACME-AS2', signing_certificate_id: ours },
  });
  t.equal(sameId.status, 409);
  t.equal(sameId.body.error.message, 'AS2 ID ACME-AS2 is used by the profile of organization acme');
  const nobody = await server.call('POST', '/api/v1/as2/local-profiles', {
    body: { local_organization_id: 9999, as2id: 'X', signing_certificate_id: ours },
  });
  t.same(nobody.body.error, invalid({ local_organization_id: 'Organization 9999 does not exist' }));
});

t.test(
  'local profile: certificates must exist and hold their own key; decryption needs RSA or EC',
  async (t) => {
    const base = { local_organization_id: initech, as2id: 'INITECH' };
    const cases: [Record<string, unknown>, Record<string, string>][] = [
      [{ signing_certificate_id: 4242 }, { signing_certificate_id: 'Certificate 4242 does not exist' }],
      [
        { signing_certificate_id: noKey },
        { signing_certificate_id: `Certificate ${noKey} (nokey) has no private key; signing needs one` },
      ],
      [
        { signing_certificate_id: mismatch },
        {
          signing_certificate_id: `Certificate ${mismatch} (mismatch) has a private key that does not belong to it; signing needs its own key`,
        },
      ],
      [
        { signing_certificate_id: ours, decryption_certificate_ids: [ours, globexCert] },
        {
          decryption_certificate_ids: `Certificate ${globexCert} (globex) has no private key; decryption needs one`,
        },
      ],
      [
        { signing_certificate_id: ecWithKey, decryption_certificate_ids: [ecWithKey, ed25519] },
        {
          decryption_certificate_ids: `Certificate ${ed25519} (ed) has an Ed25519 key; AS2 decryption needs ${encryptionKeys}`,
        },
      ],
      [
        { signing_certificate_id: ecWithKey, decryption_certificate_ids: [secp256k1] },
        {
          decryption_certificate_ids: `Certificate ${secp256k1} (k1) has an EC secp256k1 key; AS2 decryption needs ${encryptionKeys}`,
        },
      ],
      [
        { signing_certificate_id: ours, decryption_certificate_ids: [ours, ours] },
        { decryption_certificate_ids: `Lists certificate ${ours} twice` },
      ],
      [
        { signing_certificate_id: ours, decryption_certificate_ids: [] },
        { decryption_certificate_ids: 'Must have at least 1 entries' },
      ],
      [
        { signing_certificate_id: ours, async_mdn_url: 'ftp://x' },
        { async_mdn_url: 'Must be an absolute http or https URL' },
      ],
      [
        { signing_certificate_id: ours, async_mdn_url: 'https://as2.acme.example/mdn?token=abc' },
        { async_mdn_url: 'Must not contain credentials (user name, password or a token parameter)' },
      ],
      [
        { signing_certificate_id: ours, as2id: '"quoted"' },
        {
          as2id:
            'Use printable ASCII characters without quotes or backslashes, not starting or ending with a space',
        },
      ],
      [
        { as2id: 'x'.repeat(129) },
        { as2id: 'Must be at most 128 characters', signing_certificate_id: 'Required' },
      ],
    ];
    for (const [body, details] of cases) {
      const answer = await server.call('POST', '/api/v1/as2/local-profiles', { body: { ...base, ...body } });
      t.equal(answer.status, 400, JSON.stringify(body));
      t.same(answer.body.error, invalid(details));
    }
    const [count] = await sql<{ n: number }>(
      server.db.url,
      'select count(*)::int as n from as2_local_profile',
    );
    t.equal(count!.n, 1, 'nothing was stored');
  },
);

t.test('EC certificates (P-256, P-384) decrypt for the local side and encrypt to a partner', async (t) => {
  const local = await server.call('POST', '/api/v1/as2/local-profiles', {
    body: {
      local_organization_id: initech,
      as2id: 'INITECH',
      signing_certificate_id: ecWithKey,
      decryption_certificate_ids: [ec384, ecWithKey],
    },
  });
  t.equal(local.status, 201, local.raw);
  t.same(local.body.data.decryption_certificate_ids, [ec384, ecWithKey]);
  const remote = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: {
      business_partner_id: umbrella,
      as2id: 'UMBRELLA',
      endpoint: 'https://u.example/as2',
      partner_certificate_id: ec384,
      encryption_algorithm: 'aes256-gcm',
    },
  });
  t.equal(remote.status, 201, remote.raw);
  t.match(remote.body.data, { partner_certificate_id: ec384, encryption_algorithm: 'aes256-gcm' });
  const moved = await server.call('PUT', `/api/v1/as2/remote-profiles/${umbrella}`, {
    body: { partner_certificate_id: ecWithKey },
  });
  t.equal(moved.status, 200, moved.raw);
  t.equal(moved.body.data.partner_certificate_id, ecWithKey);
  t.equal((await server.call('DELETE', `/api/v1/as2/remote-profiles/${umbrella}`)).status, 204);
  t.equal((await server.call('DELETE', `/api/v1/as2/local-profiles/${initech}`)).status, 204);
});

t.test('local profile: rollover lists, updates and the path rule', async (t) => {
  const rolled = await server.call('PUT', `/api/v1/as2/local-profiles/${acme}`, {
    body: { decryption_certificate_ids: [oursNext, ours], async_mdn_url: 'https://as2.acme.example/mdn' },
  });
  t.equal(rolled.status, 200);
  t.same(rolled.body.data.decryption_certificate_ids, [oursNext, ours], 'order kept: current first');
  t.equal(rolled.body.data.signing_certificate_id, ours, 'a property left out keeps its value');
  const roundTrip = await server.call('PUT', `/api/v1/as2/local-profiles/${acme}`, {
    body: rolled.body.data,
  });
  t.equal(roundTrip.status, 200, 'a record read back can be sent again');
  const other = await server.call('PUT', `/api/v1/as2/local-profiles/${acme}`, {
    body: { local_organization_id: initech },
  });
  t.same(
    other.body.error,
    invalid({ local_organization_id: `Names organization ${initech}, but the path names ${acme}` }),
  );
  const none = await server.call('PUT', `/api/v1/as2/local-profiles/${initech}`, { body: { as2id: 'X' } });
  t.equal(none.status, 404);
  t.same(none.body.error, { code: 'NOT_FOUND', message: 'AS2 profile not found' });
  const [audit] = await sql<{ changes: unknown }>(
    server.db.url,
    "select changes from audit_event where kind = 'as2-local-profile' and action = 'update' order by id desc limit 1",
  );
  t.same(audit!.changes, [
    { field: 'decryption_certificate_ids', old: [ours], new: [oursNext, ours] },
    { field: 'async_mdn_url', old: '', new: 'https://as2.acme.example/mdn' },
  ]);
});

const partnerBase = {
  as2id: 'GLOBEX-AS2',
  endpoint: 'https://as2.globex.example/receive',
};

t.test('remote profile: a new one starts from secure defaults', async (t) => {
  const made = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: { business_partner_id: globex, ...partnerBase, partner_certificate_id: globexCert },
  });
  t.equal(made.status, 201);
  t.same(made.body.data, {
    business_partner_id: globex,
    as2id: 'GLOBEX-AS2',
    endpoint: 'https://as2.globex.example/receive',
    partner_certificate_id: globexCert,
    signature_certificate_ids: [globexCert],
    signing_algorithm: 'sha256',
    encryption_algorithm: 'aes256-cbc',
    compression: true,
    mdn_mode: 'sync',
    mdn_signed: true,
    receipt_timeout_hours: 24,
    http_basic_user: '',
    http_basic_password_set: false,
    http_headers_set: false,
    tls_verify: true,
    tls_trusted_certificate_ids: [],
    tls_client_certificate_id: null,
    interop_preset: null,
    signed_attributes: true,
    algorithm_protection: true,
    transfer_encoding: 'binary',
    body_framing: 'content-length',
    filename_quoting: 'quoted',
    mic_spelling: 'rfc5751',
    key_transport: 'rsa-pkcs1',
    key_agreement: 'ecdh',
    as2bis: false,
    inbound_signature: 'required',
    inbound_encryption: 'required',
    inbound_algorithms: 'any',
    max_message_mib: null,
    created_at: made.body.data.created_at,
    updated_at: made.body.data.updated_at,
  });
  const second = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: { business_partner_id: globex, ...partnerBase, as2id: 'OTHER', partner_certificate_id: globexCert },
  });
  t.equal(second.status, 409);
  t.equal(second.body.error.message, 'Partner globex already has an AS2 profile');
  const sameId = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: { business_partner_id: umbrella, ...partnerBase, partner_certificate_id: globexCert },
  });
  t.equal(sameId.status, 409);
  t.same(sameId.body.error.details, { as2id: 'AS2 ID GLOBEX-AS2 is used by the profile of partner globex' });
});

t.test('remote profile: the validation examples of docs/api/conventions.md#errors', async (t) => {
  const encryptedWithoutCertificate = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: {
      business_partner_id: umbrella,
      as2id: 'UMBRELLA',
      endpoint: 'https://as2.umbrella.example/',
      encryption_algorithm: 'aes128-cbc',
      signature_certificate_ids: [globexCert],
    },
  });
  t.equal(encryptedWithoutCertificate.status, 400);
  t.same(
    encryptedWithoutCertificate.body.error,
    invalid({
      partner_certificate_id: 'Required when messages are encrypted (encryption_algorithm is not none)',
    }),
  );
  const namesOther = await server.call('PUT', `/api/v1/as2/remote-profiles/${globex}`, {
    body: { business_partner_id: umbrella },
  });
  t.equal(namesOther.status, 400);
  t.same(
    namesOther.body.error,
    invalid({ business_partner_id: `Names partner ${umbrella}, but the path names ${globex}` }),
  );
  const unencrypted = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: {
      business_partner_id: umbrella,
      as2id: 'UMBRELLA',
      endpoint: 'http://127.0.0.1:4080/as2',
      encryption_algorithm: 'none',
      mdn_signed: false,
    },
  });
  t.equal(unencrypted.status, 201, 'no certificate is needed without encryption and signed receipts');
  t.equal(unencrypted.body.data.partner_certificate_id, null);
  await server.call('DELETE', `/api/v1/as2/remote-profiles/${umbrella}`);
});

t.test(
  'remote profile: a refused create whose body leaves a list out names its problems, never a 500',
  async (t) => {
    // A refused property sends the create down the path that judges the rest of the body; a
    // list left out there was read as missing rather than empty (found by test/fuzz/api-fuzz).
    const refused = await server.call('POST', '/api/v1/as2/remote-profiles', {
      body: {
        business_partner_id: umbrella,
        as2id: 'UMBRELLA',
        endpoint: 'https://as2.umbrella.example/',
        partner_certificate_id: globexCert,
        signature_certificate_ids: [globexCert],
        compression: 'sometimes',
      },
    });
    t.equal(refused.status, 400);
    t.equal(refused.body.error.code, 'INVALID_INPUT');
    t.same(refused.body.error.details, { compression: 'Must be true or false' });
    t.equal(
      (await server.call('GET', `/api/v1/as2/remote-profiles/${umbrella}`)).status,
      404,
      'nothing stored',
    );
  },
);

t.test('remote profile: ranges, values and cross-field rules', async (t) => {
  const base = {
    business_partner_id: umbrella,
    as2id: 'UMBRELLA',
    endpoint: 'https://u.example/as2',
    partner_certificate_id: globexCert,
  };
  const cases: [Record<string, unknown>, Record<string, string>][] = [
    [{ receipt_timeout_hours: 0 }, { receipt_timeout_hours: 'Must be at least 1' }],
    [{ receipt_timeout_hours: 721 }, { receipt_timeout_hours: 'Must be at most 720' }],
    [{ receipt_timeout_hours: 1.5 }, { receipt_timeout_hours: 'Must be a whole number' }],
    [{ signing_algorithm: 'md5' }, { signing_algorithm: `Must be one of: ${signingAlgorithms.join(', ')}` }],
    [
      { encryption_algorithm: 'rc2' },
      {
        encryption_algorithm:
          'Must be one of: none, 3des, aes128-cbc, aes192-cbc, aes256-cbc, aes128-gcm, aes256-gcm',
      },
    ],
    [{ mdn_mode: 'later' }, { mdn_mode: 'Must be one of: sync, async, none' }],
    [
      { endpoint: 'https://user:pw@u.example/as2' },
      { endpoint: 'Must not contain credentials (user name, password or a token parameter)' },
    ],
    [{ endpoint: 'as2.umbrella.example' }, { endpoint: 'Must be an absolute http or https URL' }],
    [{ endpoint: 'https://u.example/as2\u0000' }, { endpoint: 'Must not contain control characters' }],
    [
      { partner_certificate_id: secp256k1 },
      {
        partner_certificate_id: `Certificate ${secp256k1} (k1) has an EC secp256k1 key; AS2 encryption needs ${encryptionKeys}`,
      },
    ],
    [
      { partner_certificate_id: ed25519 },
      {
        partner_certificate_id: `Certificate ${ed25519} (ed) has an Ed25519 key; AS2 encryption needs ${encryptionKeys}`,
      },
    ],
    [
      { partner_certificate_id: null, encryption_algorithm: 'none' },
      { signature_certificate_ids: "Required to verify the partner's signed receipts (mdn_signed is true)" },
    ],
    [
      { signature_certificate_ids: [globexCert, 777] },
      { signature_certificate_ids: 'Certificate 777 does not exist' },
    ],
    [
      { tls_client_certificate_id: noKey },
      {
        tls_client_certificate_id: `Certificate ${noKey} (nokey) has no private key; TLS client authentication needs one`,
      },
    ],
    [{ http_basic_password: 'pw-1' }, { http_basic_user: 'Required with http_basic_password' }],
    [{ http_basic_user: 'a:b' }, { http_basic_user: 'Must not contain a colon' }],
    [
      { http_headers: [{ name: 'Content-Type', value: 'secret-value-1' }] },
      { http_headers: 'Header 1 is content-type, which the AS2 sender sets itself' },
    ],
    [
      {
        http_headers: [
          { name: 'X-Api', value: 'secret-value-1' },
          { name: 'x-api', value: 'secret-value-2' },
        ],
      },
      { http_headers: 'Headers 1 and 2 have the same name' },
    ],
    [
      { http_headers: [{ name: 'X-Api', value: 'secret-value-1\r\nX-Evil: 1' }] },
      { http_headers: 'Must not contain line breaks or control characters' },
    ],
    [
      { http_headers: [{ name: 'bad name', value: 'secret-value-1' }] },
      { http_headers: 'Must be an HTTP header name (letters, digits and - _ . and the like)' },
    ],
    [{ local_organization_id: acme }, { local_organization_id: 'Unknown property' }],
  ];
  for (const [body, details] of cases) {
    const answer = await server.call('POST', '/api/v1/as2/remote-profiles', { body: { ...base, ...body } });
    t.equal(answer.status, 400, JSON.stringify(body));
    t.same(answer.body.error, invalid(details));
    t.notOk(/secret-value|pw-1/.test(answer.raw), 'write-only values stay out of the answer');
  }
  const max = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: { ...base, receipt_timeout_hours: 720, signature_certificate_ids: [globexNext, globexCert] },
  });
  t.equal(max.status, 201);
  t.same(
    max.body.data.signature_certificate_ids,
    [globexNext, globexCert],
    'rollover: current and next verify',
  );
  await server.call('DELETE', `/api/v1/as2/remote-profiles/${umbrella}`);
});

t.test('remote profile: write-only secrets are sealed, never shown, and tied to the endpoint', async (t) => {
  const password = 'Basic-Pa55-word';
  const headerValue = 'api-key-0123456789';
  const set = await server.call('PUT', `/api/v1/as2/remote-profiles/${globex}`, {
    body: {
      http_basic_user: 'pier',
      http_basic_password: password,
      http_headers: [{ name: 'X-Api-Key', value: headerValue }],
    },
  });
  t.equal(set.status, 200);
  t.match(set.body.data, { http_basic_user: 'pier', http_basic_password_set: true, http_headers_set: true });
  const [row] = await sql<{ http_basic_password: string; http_headers: string }>(
    server.db.url,
    'select http_basic_password, http_headers from as2_remote_profile where partner_id = $1',
    [globex],
  );
  t.match(row!.http_basic_password, /^v1:/);
  t.notOk(row!.http_basic_password.includes(password));
  t.notOk(row!.http_headers.includes(headerValue));
  t.equal(server.ctx.secrets.openText(row!.http_basic_password), password);

  const kept = await server.call('PUT', `/api/v1/as2/remote-profiles/${globex}`, {
    body: { mdn_mode: 'async' },
  });
  t.match(kept.body.data, { mdn_mode: 'async', http_basic_password_set: true, http_headers_set: true });

  const storedRow = () =>
    sql(server.db.url, 'select * from as2_remote_profile where partner_id = $1', [globex]);
  const rowBefore = await storedRow();
  // docs/api/conventions.md#write-only-values: the failure is on the property that changed, not on the secrets left out.
  const moved = await server.call('PUT', `/api/v1/as2/remote-profiles/${globex}`, {
    body: { endpoint: 'https://new.globex.example/as2', mdn_mode: 'sync' },
  });
  t.equal(moved.status, 400);
  t.same(
    moved.body.error,
    invalid({
      endpoint:
        'Changing endpoint needs http_basic_password and http_headers sent again: stored secrets are not kept for a new endpoint (an empty text or list removes one)',
    }),
  );
  const onePart = await server.call('PUT', `/api/v1/as2/remote-profiles/${globex}`, {
    body: { endpoint: 'https://new.globex.example/as2', http_headers: [] },
  });
  t.same(
    onePart.body.error,
    invalid({
      endpoint:
        'Changing endpoint needs http_basic_password sent again: stored secrets are not kept for a new endpoint (an empty text or list removes one)',
    }),
    'only the secret still left out is named',
  );
  t.same(await storedRow(), rowBefore, 'nothing changed in the stored profile');
  const unchanged = await server.call('GET', `/api/v1/as2/remote-profiles/${globex}`);
  t.equal(unchanged.body.data.endpoint, 'https://as2.globex.example/receive', 'nothing changed');

  const resent = await server.call('PUT', `/api/v1/as2/remote-profiles/${globex}`, {
    body: { endpoint: 'https://new.globex.example/as2', http_basic_password: password, http_headers: [] },
  });
  t.equal(resent.status, 200);
  t.match(resent.body.data, { http_basic_password_set: true, http_headers_set: false });
  const cleared = await server.call('PUT', `/api/v1/as2/remote-profiles/${globex}`, {
    body: { http_basic_password: '' },
  });
  t.equal(cleared.body.data.http_basic_password_set, false);

  const events = await sql<{ raw: string }>(
    server.db.url,
    "select changes::text as raw from audit_event where kind = 'as2-remote-profile'",
  );
  t.ok(events.some((e) => e.raw.includes('"field": "http_basic_password", "secret": true')));
  for (const answer of [
    set,
    kept,
    moved,
    onePart,
    unchanged,
    resent,
    cleared,
    ...events.map((e) => ({ raw: e.raw })),
  ]) {
    t.notOk(answer.raw.includes(password) || answer.raw.includes(headerValue), 'never echoed');
  }
});

t.test('a certificate in use cannot be deleted; the answer lists its users', async (t) => {
  await server.call('PUT', `/api/v1/as2/remote-profiles/${globex}`, {
    body: { signature_certificate_ids: [globexCert, oursNext] },
  });
  const refused = await server.call('DELETE', `/api/v1/certificates/${oursNext}`);
  t.equal(refused.status, 409);
  t.same(refused.body.error, {
    code: 'CERTIFICATE_IN_USE',
    message:
      'The certificate is used by the AS2 profile of organization acme (decryption_certificate_ids), the AS2 profile of partner globex (signature_certificate_ids)',
    details: {
      users: [
        {
          kind: 'as2-local-profile',
          name: 'acme',
          fields: ['decryption_certificate_ids'],
          link: `/api/v1/as2/local-profiles/${acme}`,
        },
        {
          kind: 'as2-remote-profile',
          name: 'globex',
          fields: ['signature_certificate_ids'],
          link: `/api/v1/as2/remote-profiles/${globex}`,
        },
      ],
      total: 2,
    },
  });
  const both = await server.call('DELETE', `/api/v1/certificates/${globexCert}`);
  t.same(both.body.error.details.users[0].fields, ['partner_certificate_id', 'signature_certificate_ids']);
  const still = await server.call('GET', `/api/v1/certificates/${oursNext}`);
  t.equal(still.status, 200, 'the certificate is still there');
});

t.test('at most 25 users are listed; total counts all', async (t) => {
  const shared = globexNext;
  for (let i = 0; i < 27; i++) {
    const partner = await party('partners', `p${String(i).padStart(2, '0')}`);
    const made = await server.call('POST', '/api/v1/as2/remote-profiles', {
      body: {
        business_partner_id: partner,
        as2id: `P${i}`,
        endpoint: 'https://p.example/as2',
        partner_certificate_id: shared,
      },
    });
    if (made.status !== 201) t.fail(made.raw);
  }
  const refused = await server.call('DELETE', `/api/v1/certificates/${shared}`);
  t.equal(refused.status, 409);
  t.equal(refused.body.error.details.users.length, 25);
  t.equal(refused.body.error.details.total, 27);
  t.equal(refused.body.error.details.users[0].name, 'p00');
  t.match(
    refused.body.error.message,
    /^The certificate is used by the AS2 profile of partner p00 \(partner_certificate_id, signature_certificate_ids\), .* and 24 more$/,
  );
});

t.test('deleting profiles (or their party) frees the certificate', async (t) => {
  t.equal((await server.call('DELETE', `/api/v1/as2/local-profiles/${acme}`)).status, 204);
  t.equal((await server.call('GET', `/api/v1/as2/local-profiles/${acme}`)).status, 404);
  const partnerDeleted = await server.call('DELETE', `/api/v1/partners/${globex}`);
  t.equal(partnerDeleted.status, 204, 'a partner with a profile can be deleted; its profile goes with it');
  t.equal((await server.call('GET', `/api/v1/as2/remote-profiles/${globex}`)).status, 404);
  t.equal((await server.call('DELETE', `/api/v1/certificates/${oursNext}`)).status, 204);
  const [left] = await sql<{ n: number }>(
    server.db.url,
    'select count(*)::int as n from as2_profile_certificate where certificate_id = $1',
    [oursNext],
  );
  t.equal(left!.n, 0);
});

t.test('a delete racing a profile save never leaves a profile naming a missing certificate', async (t) => {
  const racer = await party('partners', 'racer');
  const base = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: {
      business_partner_id: racer,
      as2id: 'RACER',
      endpoint: 'https://racer.example/as2',
      encryption_algorithm: 'none',
      mdn_signed: false,
    },
  });
  t.equal(base.status, 201);
  for (let i = 0; i < 8; i++) {
    f.openssl(
      `req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout race${i}.key -out race${i}.crt -subj /CN=race${i}`,
    );
    const id = await store(`race${i}`, false);
    // Alternate which request starts first, so both orders of the race are exercised.
    const remove = () => server.call('DELETE', `/api/v1/certificates/${id}`);
    const save = () =>
      server.call('PUT', `/api/v1/as2/remote-profiles/${racer}`, {
        body: { signature_certificate_ids: [id] },
      });
    const [removed, saved] =
      i % 2 === 0
        ? await Promise.all([remove(), save()])
        : await Promise.all([save(), remove()]).then(([s, r]) => [r, s] as const);
    const outcome = `${removed.status}/${saved.status}`;
    t.ok(outcome === '204/400' || outcome === '409/200', `round ${i}: ${outcome}`);
    if (saved.status === 400)
      t.same(saved.body.error.details, { signature_certificate_ids: `Certificate ${id} does not exist` });
    const [dangling] = await sql<{ n: number }>(
      server.db.url,
      'select count(*)::int as n from as2_profile_certificate pc left join certificate c on c.id = pc.certificate_id where c.id is null',
    );
    t.equal(dangling!.n, 0);
  }
});

t.test('a delete waits for a profile save in progress, then sees the new user', async (t) => {
  f.openssl(
    'req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout held.key -out held.crt -subj /CN=held',
  );
  const id = await store('held', false);
  const racer = (await sql<{ id: number }>(server.db.url, "select id from partner where name = 'racer'"))[0]!
    .id;
  const client = new pg.Client({ connectionString: server.db.url });
  await client.connect();
  try {
    // What a profile save does: lock the certificate row (KEY SHARE), then write its reference.
    await client.query('begin');
    await client.query('select id from certificate where id = $1 for key share', [id]);
    const pending = server.call('DELETE', `/api/v1/certificates/${id}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await client.query(
      "insert into as2_profile_certificate (business_partner_id, field, position, certificate_id) values ($1, 'tls_trusted_certificate_ids', 0, $2)",
      [racer, id],
    );
    await client.query('commit');
    const removed = await pending;
    t.equal(removed.status, 409);
    t.equal(removed.body.error.code, 'CERTIFICATE_IN_USE');
    t.same(removed.body.error.details.users[0].fields, ['tls_trusted_certificate_ids']);
  } finally {
    await client.end();
  }
});
