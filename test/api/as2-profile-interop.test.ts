// Covers the interop options of remote AS2 profiles (docs/interop.md): defaults on create and for rows older than the columns, presets filling options, explicit options winning over a preset, updates keeping what they do not name, the audit trail, bad values and as2bis conflicts refused with nothing stored.
import t from 'tap';
import { defaultInteropOptions, interopPresets } from '../../protocol/as2/interop-presets.js';
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

const profileBase = (partnerId: number, as2id: string) => ({
  business_partner_id: partnerId,
  as2id,
  endpoint: 'https://as2.partner.example/as2',
  partner_certificate_id: certificate,
});

/** The library's defaults under the API's names: what a profile shows when nothing was chosen. */
const defaults = {
  interop_preset: null,
  signed_attributes: defaultInteropOptions.signedAttributes,
  algorithm_protection: defaultInteropOptions.algorithmProtection,
  transfer_encoding: defaultInteropOptions.transferEncoding,
  body_framing: defaultInteropOptions.bodyFraming,
  filename_quoting: defaultInteropOptions.filenameQuoting,
  mic_spelling: defaultInteropOptions.micSpelling,
  key_transport: defaultInteropOptions.keyTransport,
  as2bis: false,
};

const invalid = (details: Record<string, string>) => ({
  code: 'INVALID_INPUT',
  message: 'Validation failed',
  details,
});

async function lastAudit(partnerId: number) {
  const [event] = await sql<{ action: string; changes: { field: string; old?: unknown; new?: unknown }[] }>(
    server.db.url,
    "select action, changes from audit_event where kind = 'as2-remote-profile' and record_id = $1 order by id desc limit 1",
    [String(partnerId)],
  );
  return event;
}

t.test('a new profile shows the defaults, in the answer, GET and the list', async (t) => {
  const id = await partner('plain');
  const made = await server.call('POST', '/api/v1/as2/remote-profiles', { body: profileBase(id, 'PLAIN') });
  t.equal(made.status, 201);
  t.match(made.body.data, defaults);
  t.same(defaults.transfer_encoding, 'binary', 'the library default is what the API calls binary');
  const got = await server.call('GET', `/api/v1/as2/remote-profiles/${id}`);
  t.same(got.body.data, made.body.data);
  const list = await server.call('GET', '/api/v1/as2/remote-profiles');
  t.same(
    list.body.data.profiles.find((p: { business_partner_id: number }) => p.business_partner_id === id),
    made.body.data,
  );
  const audit = await lastAudit(id);
  t.same(
    audit!.changes.filter((c) => c.field in defaults),
    Object.entries(defaults).map(([field, value]) => ({ field, new: value })),
    'the creation event lists every option it set',
  );
});

t.test('a profile stored before the options existed reads as the defaults', async (t) => {
  const id = await partner('older');
  // What Migration0013 finds: a row written without the option columns.
  await sql(
    server.db.url,
    `insert into as2_remote_profile (partner_id, as2id, endpoint, signing_algorithm, encryption_algorithm,
       compression, mdn_mode, mdn_signed, receipt_timeout_hours)
     values ($1, 'OLDER', 'https://older.example/as2', 'sha256', 'none', true, 'none', false, 24)`,
    [id],
  );
  const got = await server.call('GET', `/api/v1/as2/remote-profiles/${id}`);
  t.equal(got.status, 200);
  t.match(got.body.data, defaults);
});

t.test('a preset fills the options it sets; options the request names win', async (t) => {
  const biztalk = await partner('biztalk-co');
  const made = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: { ...profileBase(biztalk, 'BIZTALK'), interop_preset: 'biztalk' },
  });
  t.equal(made.status, 201);
  t.same(interopPresets.biztalk.settings, { keyTransport: 'rsa-oaep', bodyFraming: 'chunked' });
  t.match(made.body.data, {
    ...defaults,
    interop_preset: 'biztalk',
    key_transport: 'rsa-oaep',
    body_framing: 'chunked',
  });

  const mixed = await partner('biztalk-liaison');
  const both = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: {
      ...profileBase(mixed, 'MIXED'),
      interop_preset: 'biztalk',
      body_framing: 'content-length',
      signed_attributes: false,
    },
  });
  t.equal(both.status, 201);
  t.match(both.body.data, {
    interop_preset: 'biztalk',
    key_transport: 'rsa-oaep',
    body_framing: 'content-length',
    signed_attributes: false,
    algorithm_protection: true,
  });
  const [row] = await sql<Record<string, unknown>>(
    server.db.url,
    'select interop_preset, key_transport, body_framing, signed_attributes from as2_remote_profile where partner_id = $1',
    [mixed],
  );
  t.same(
    row,
    {
      interop_preset: 'biztalk',
      key_transport: 'rsa-oaep',
      body_framing: 'content-length',
      signed_attributes: false,
    },
    'the stored options are the effective ones the sender uses',
  );
});

t.test(
  'updates: a new preset replaces the old one in one request, other options keep their values, null only drops the name',
  async (t) => {
    const id = await partner('sterling-co');
    await server.call('POST', '/api/v1/as2/remote-profiles', {
      body: { ...profileBase(id, 'STERLING'), interop_preset: 'biztalk', mic_spelling: 'rfc3851' },
    });
    const sterling = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
      body: { interop_preset: 'ibm-sterling' },
    });
    t.equal(sterling.status, 200);
    // Switching presets starts from the defaults: biztalk's options and the earlier
    // mic_spelling go, since this request does not name them.
    t.match(sterling.body.data, {
      interop_preset: 'ibm-sterling',
      algorithm_protection: false,
      transfer_encoding: 'binary',
      key_transport: 'rsa-pkcs1',
      body_framing: 'content-length',
      mic_spelling: 'rfc5751',
    });
    const audit = await lastAudit(id);
    t.equal(audit!.action, 'update');
    t.same(audit!.changes, [
      { field: 'interop_preset', old: 'biztalk', new: 'ibm-sterling' },
      { field: 'algorithm_protection', old: true, new: false },
      { field: 'body_framing', old: 'chunked', new: 'content-length' },
      { field: 'mic_spelling', old: 'rfc3851', new: 'rfc5751' },
      { field: 'key_transport', old: 'rsa-oaep', new: 'rsa-pkcs1' },
    ]);

    const explicit = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
      body: { interop_preset: 'ibm-sterling', algorithm_protection: true, signed_attributes: false },
    });
    t.match(explicit.body.data, {
      interop_preset: 'ibm-sterling',
      algorithm_protection: true,
      signed_attributes: false,
    });

    const reapplied = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
      body: { interop_preset: 'ibm-sterling' },
    });
    t.equal(reapplied.body.data.algorithm_protection, false, 'naming the preset again applies it again');
    t.equal(reapplied.body.data.signed_attributes, false, 'options the preset does not set stay');

    const one = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
      body: { filename_quoting: 'token' },
    });
    t.match(one.body.data, {
      interop_preset: 'ibm-sterling',
      filename_quoting: 'token',
      algorithm_protection: false,
    });

    const unnamed = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
      body: { interop_preset: null },
    });
    t.match(unnamed.body.data, {
      interop_preset: null,
      algorithm_protection: false,
      key_transport: 'rsa-pkcs1',
      filename_quoting: 'token',
    });

    const events = await sql<{ n: number }>(
      server.db.url,
      "select count(*)::int as n from audit_event where kind = 'as2-remote-profile' and record_id = $1",
      [String(id)],
    );
    const roundTrip = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
      body: unnamed.body.data,
    });
    t.equal(roundTrip.status, 200, 'a record read back can be sent again');
    t.same(roundTrip.body.data, unnamed.body.data, 'and changes nothing');
    const after = await sql<{ n: number }>(
      server.db.url,
      "select count(*)::int as n from audit_event where kind = 'as2-remote-profile' and record_id = $1",
      [String(id)],
    );
    t.equal(after[0]!.n, events[0]!.n, 'no audit event for a change of nothing');

    const switched = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
      body: { interop_preset: 'biztalk', mic_spelling: 'rfc3851' },
    });
    t.match(
      switched.body.data,
      {
        interop_preset: 'biztalk',
        key_transport: 'rsa-oaep',
        body_framing: 'chunked',
        mic_spelling: 'rfc3851',
        algorithm_protection: true,
        signed_attributes: true,
        filename_quoting: 'quoted',
      },
      'one request with a new preset: its options, the ones sent with it, defaults for the rest',
    );
  },
);

t.test('bad option values are refused on their property and change nothing', async (t) => {
  const id = await partner('bad-values');
  const made = await server.call('POST', '/api/v1/as2/remote-profiles', { body: profileBase(id, 'BAD') });
  const cases: [Record<string, unknown>, Record<string, string>][] = [
    [
      { interop_preset: 'websphere' },
      { interop_preset: 'Must be one of: ibm-sterling, biztalk, mendelson, liaison, openas2' },
    ],
    [
      { interop_preset: 'BizTalk' },
      { interop_preset: 'Must be one of: ibm-sterling, biztalk, mendelson, liaison, openas2' },
    ],
    [{ transfer_encoding: 'quoted-printable' }, { transfer_encoding: 'Must be one of: binary, base64' }],
    [{ body_framing: 'Chunked' }, { body_framing: 'Must be one of: content-length, chunked' }],
    [{ filename_quoting: 'rfc2231' }, { filename_quoting: 'Must be one of: quoted, token' }],
    [{ mic_spelling: 'sha-256' }, { mic_spelling: 'Must be one of: rfc5751, rfc3851' }],
    [
      { key_transport: 'rsa-oaep-sha512' },
      { key_transport: 'Must be one of: rsa-pkcs1, rsa-oaep, rsa-oaep-sha256' },
    ],
    [{ signed_attributes: 'no' }, { signed_attributes: 'Must be true or false' }],
    [{ algorithm_protection: 0 }, { algorithm_protection: 'Must be true or false' }],
    [{ as2bis: 'true' }, { as2bis: 'Must be true or false' }],
  ];
  const [before] = await sql(server.db.url, 'select * from as2_remote_profile where partner_id = $1', [id]);
  let attempt = 0;
  for (const [body, details] of cases) {
    const created = await server.call('POST', '/api/v1/as2/remote-profiles', {
      body: {
        ...profileBase(await partner(`bad-${++attempt}`), 'NEW'),
        ...body,
      },
    });
    t.equal(created.status, 400, `create ${JSON.stringify(body)}`);
    t.same(created.body.error, invalid(details));
    const updated = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, { body });
    t.equal(updated.status, 400, `update ${JSON.stringify(body)}`);
    t.same(updated.body.error, invalid(details));
  }
  const [after] = await sql(server.db.url, 'select * from as2_remote_profile where partner_id = $1', [id]);
  t.same(after, before, 'the stored profile is unchanged');
  const [count] = await sql<{ n: number }>(
    server.db.url,
    "select count(*)::int as n from as2_remote_profile where as2id = 'NEW'",
  );
  t.equal(count!.n, 0, 'no profile was created');
  t.equal(
    (await server.call('GET', `/api/v1/as2/remote-profiles/${id}`)).raw,
    JSON.stringify({ data: made.body.data, error: null }),
  );
});

t.test('as2bis refuses a profile that would generate SHA-1 or 3DES', async (t) => {
  const id = await partner('modern');
  const sha1 =
    'as2bis forbids generating sha1 signatures: choose sha256, sha384 or sha512, or turn as2bis off';
  const des = 'as2bis forbids generating 3des encryption: choose an AES algorithm, or turn as2bis off';
  const cases: [Record<string, unknown>, Record<string, string>][] = [
    [{ signing_algorithm: 'sha1' }, { signing_algorithm: sha1 }],
    [{ encryption_algorithm: '3des' }, { encryption_algorithm: des }],
    [
      { signing_algorithm: 'sha1', encryption_algorithm: '3des' },
      { signing_algorithm: sha1, encryption_algorithm: des },
    ],
  ];
  for (const [body, details] of cases) {
    const refused = await server.call('POST', '/api/v1/as2/remote-profiles', {
      body: { ...profileBase(id, 'MODERN'), as2bis: true, ...body },
    });
    t.equal(refused.status, 400, JSON.stringify(body));
    t.same(refused.body.error, invalid(details));
  }
  t.equal((await server.call('GET', `/api/v1/as2/remote-profiles/${id}`)).status, 404, 'nothing stored');

  const legacy = await server.call('POST', '/api/v1/as2/remote-profiles', {
    body: { ...profileBase(id, 'MODERN'), signing_algorithm: 'sha1', encryption_algorithm: '3des' },
  });
  t.equal(legacy.status, 201, 'without as2bis a partner may still be sent SHA-1 and 3DES');
  const switchedOn = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
    body: { as2bis: true },
  });
  t.equal(switchedOn.status, 400);
  t.same(switchedOn.body.error, invalid({ signing_algorithm: sha1, encryption_algorithm: des }));
  const both = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
    body: { as2bis: true, signing_algorithm: 'sha384', encryption_algorithm: 'aes128-gcm' },
  });
  t.equal(both.status, 200, 'switching on together with modern algorithms is fine');
  t.match(both.body.data, { as2bis: true, signing_algorithm: 'sha384', encryption_algorithm: 'aes128-gcm' });
  const back = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
    body: { signing_algorithm: 'sha1' },
  });
  t.same(back.body.error, invalid({ signing_algorithm: sha1 }));
  const [row] = await sql<{ signing_algorithm: string; as2bis: boolean }>(
    server.db.url,
    'select signing_algorithm, as2bis from as2_remote_profile where partner_id = $1',
    [id],
  );
  t.same(row, { signing_algorithm: 'sha384', as2bis: true }, 'the refused change left the profile as it was');
  const unsigned = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
    body: { signing_algorithm: 'none', encryption_algorithm: 'none', mdn_signed: false },
  });
  t.equal(unsigned.status, 200, 'as2bis does not require signing or encryption');
  const audit = await lastAudit(id);
  t.ok(audit!.changes.some((c) => c.field === 'signing_algorithm' && c.old === 'sha384' && c.new === 'none'));
});
