// Covers the as2-receiver's tls_certificate_id on the plugin-config API and at start: unknown, keyless, mismatched and client-only certificates are refused on the property and nothing is stored; a certificate a configuration names cannot be deleted (409 CERTIFICATE_IN_USE listing the configuration) until the configuration lets go, also when the save and the delete race; a start whose certificate vanished, lost its key or does not fit its key fails with START_FAILED and plugin_failed, and no private key reaches an answer or a log line.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { freePort, storeCertificate } from '../helpers/as2.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { startTestServer, type Answer } from '../helpers/server.js';
import { serverCertificate } from '../helpers/tls.js';

const logged: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logged.push(chunk.toString());
    done();
  },
});
const server = await startTestServer(t, { logger: pino({ level: 'debug' }, logStream) });
const f = makeFixtures(t);
serverCertificate(f, 'tls');
serverCertificate(f, 'spare');
serverCertificate(f, 'keyless');
serverCertificate(f, 'nokey');
serverCertificate(f, 'wrongpair');
serverCertificate(f, 'clientonly', 'clientAuth,emailProtection');
f.openssl('genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out other.key'); // never stored: its lines must not be logged either

const tlsCert = await storeCertificate(server, f, 'tls');
const spare = await storeCertificate(server, f, 'spare');
const keyless = await storeCertificate(server, f, 'keyless');
const noKey = await storeCertificate(server, f, 'nokey', false);
const clientOnly = await storeCertificate(server, f, 'clientonly');
// Uploads refuse a key of another certificate now; a row stored before that rule holds one
// (another certificate's sealed key, as such a row has it).
const wrongPair = await storeCertificate(server, f, 'wrongpair');
await sql(
  server.db.url,
  'update certificate set private_key = (select private_key from certificate where id = $2), private_key_matches = false where id = $1',
  [wrongPair, spare],
);

const configs = '/api/v1/plugins/configs';
const create = async (name: string, settings: Record<string, unknown>) =>
  server.call('POST', `${configs}?type=as2-receiver`, {
    // Disabled: started by the tests that start them (an enabled one starts at once).
    body: { name, host: '127.0.0.1', port: await freePort(), enabled: false, ...settings },
  });
const start = (name: string) => server.call('POST', `/api/v1/services/as2-receiver/${name}/start`);
const validation = (answer: Answer) => ({ status: answer.status, error: answer.body.error });

t.test('the certificate must exist, hold its own key and allow TLS servers', async (t) => {
  const cases: [string, unknown, string][] = [
    ['unknown', 999999, 'Certificate 999999 does not exist'],
    ['nokey', noKey, `Certificate ${noKey} (nokey) has no private key; serving HTTPS needs one`],
    [
      'wrongpair',
      wrongPair,
      `Certificate ${wrongPair} (wrongpair) has a private key that does not belong to it; serving HTTPS needs its own key`,
    ],
    [
      'clientonly',
      clientOnly,
      `Certificate ${clientOnly} (clientonly) is limited to clientAuth, emailProtection; serving HTTPS needs serverAuth`,
    ],
  ];
  for (const [name, id, message] of cases) {
    const refused = await create(name, { tls_certificate_id: id });
    t.same(
      validation(refused),
      {
        status: 400,
        error: {
          code: 'INVALID_INPUT',
          message: 'Validation failed',
          details: { tls_certificate_id: message },
        },
      },
      name,
    );
    t.equal(
      (await server.call('GET', `${configs}/as2-receiver/${name}`)).status,
      404,
      `${name}: nothing stored`,
    );
  }
  for (const bad of ['7', 1.5, 0, -3]) {
    const refused = await create('badid', { tls_certificate_id: bad });
    t.equal(refused.status, 400, `${JSON.stringify(bad)} is refused`);
    t.ok(refused.body.error.details.tls_certificate_id, `${JSON.stringify(bad)}: on the property`);
  }

  const plain = await create('plain', {});
  t.equal(plain.status, 201);
  t.equal(plain.body.data.tls_certificate_id, null, 'plain HTTP by default');
  const moved = await server.call('PUT', `${configs}/as2-receiver/plain`, {
    body: { tls_certificate_id: noKey },
  });
  t.equal(moved.status, 400);
  t.match(moved.body.error.details.tls_certificate_id, /has no private key/);
  t.equal(
    (await server.call('GET', `${configs}/as2-receiver/plain`)).body.data.tls_certificate_id,
    null,
    'a refused update changes nothing',
  );
  const secured = await server.call('PUT', `${configs}/as2-receiver/plain`, {
    body: { tls_certificate_id: tlsCert },
  });
  t.equal(secured.status, 200, secured.raw);
  t.equal(secured.body.data.tls_certificate_id, tlsCert);
});

t.test('a certificate a configuration names cannot be deleted until it lets go', async (t) => {
  const made = await create('guarded', { tls_certificate_id: spare });
  t.equal(made.status, 201, made.raw);
  const refused = await server.call('DELETE', `/api/v1/certificates/${spare}`);
  t.equal(refused.status, 409);
  t.same(refused.body.error, {
    code: 'CERTIFICATE_IN_USE',
    message: 'The certificate is used by the plugin configuration as2-receiver/guarded (tls_certificate_id)',
    details: {
      users: [
        {
          kind: 'plugin-config',
          name: 'as2-receiver/guarded',
          fields: ['tls_certificate_id'],
          link: '/api/v1/plugins/configs/as2-receiver/guarded',
        },
      ],
      total: 1,
    },
  });
  t.equal((await server.call('GET', `/api/v1/certificates/${spare}`)).status, 200, 'still stored');

  const released = await server.call('PUT', `${configs}/as2-receiver/guarded`, {
    body: { tls_certificate_id: null },
  });
  t.equal(released.status, 200);
  t.equal((await server.call('DELETE', `/api/v1/certificates/${spare}`)).status, 204, 'deleted once unused');
  const gone = await server.call('PUT', `${configs}/as2-receiver/guarded`, {
    body: { tls_certificate_id: spare },
  });
  t.equal(gone.status, 400);
  t.equal(gone.body.error.details.tls_certificate_id, `Certificate ${spare} does not exist`);
});

t.test(
  'a save and a delete at the same time: never a configuration naming a deleted certificate',
  async (t) => {
    for (let i = 0; i < 8; i++) {
      f.openssl(
        `req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout race${i}.key -out race${i}.crt -days 30 -subj /CN=race${i}`,
      );
      const id = await storeCertificate(server, f, `race${i}`);
      // Each round one of the two starts a little later, so they meet at different points.
      const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const [saveDelay, deleteDelay] = i % 2 === 0 ? [i, 0] : [0, i];
      const [saved, deleted] = await Promise.all([
        later(saveDelay).then(() => create(`race${i}`, { tls_certificate_id: id })),
        later(deleteDelay).then(() => server.call('DELETE', `/api/v1/certificates/${id}`)),
      ]);
      const outcome = `${saved.status}/${deleted.status}`;
      t.ok(['201/409', '400/204'].includes(outcome), `round ${i}: ${outcome}`);
      const [row] = await sql<{ n: string }>(
        server.db.url,
        'select count(*) as n from certificate where id = $1',
        [id],
      );
      t.equal(row!.n, saved.status === 201 ? '1' : '0', `round ${i}: the store agrees`);
    }
  },
);

t.test('a start whose certificate cannot serve fails with the reason and an alert', async (t) => {
  const expectFailure = async (name: string, reason: string | RegExp) => {
    const failed = await start(name);
    t.equal(failed.status, 500, `${name}: ${failed.raw}`);
    t.equal(failed.body.error.code, 'START_FAILED');
    t.match(failed.body.error.message, reason);
    const services = await server.call('GET', '/api/v1/services');
    t.match(
      services.body.data.find((s: { name: string }) => s.name === name),
      { status: 'error', error: failed.body.error.message },
    );
    const alerts = await sql(server.db.url, 'select code, summary from alert where subject_name = $1', [
      name,
    ]);
    t.match(alerts, [{ code: 'plugin_failed', summary: new RegExp(`as2-receiver ${name} failed to start`) }]);
    return failed;
  };

  // Configurations saved before the store guarded them, or rows changed behind the API's back.
  t.equal((await create('vanished', { tls_certificate_id: tlsCert })).status, 201);
  await sql(
    server.db.url,
    `update plugin_config set settings = jsonb_set(settings, '{tls_certificate_id}', '999998') where name = 'vanished'`,
  );
  await expectFailure('vanished', 'tls_certificate_id: certificate 999998 no longer exists');

  t.equal((await create('lostkey', { tls_certificate_id: keyless })).status, 201);
  await sql(server.db.url, 'update certificate set private_key = null where id = $1', [keyless]);
  await expectFailure(
    'lostkey',
    `tls_certificate_id: certificate ${keyless} has no private key; serving HTTPS needs its own key`,
  );

  // A key recorded as matching that does not: OpenSSL in the receiver's thread refuses the pair.
  await sql(server.db.url, 'update certificate set private_key_matches = true where id = $1', [wrongPair]);
  t.equal((await create('mismatch', { tls_certificate_id: wrongPair })).status, 201);
  await expectFailure(
    'mismatch',
    new RegExp(`^tls_certificate_id: certificate ${wrongPair} cannot serve HTTPS: .*key values mismatch`),
  );

  const plainStart = await start('plain');
  t.equal(plainStart.status, 200, `the good configuration starts: ${plainStart.raw}`);
  await server.call('POST', '/api/v1/services/as2-receiver/plain/stop');
});

t.test('no private key in answers or logs', async (t) => {
  const keyLines = ['tls', 'spare', 'keyless', 'wrongpair', 'clientonly']
    .map((name) => f.read(`${name}.key`).toString().split('\n')[1]!)
    .concat(f.read('other.key').toString().split('\n')[1]!);
  const text = logged.join('');
  t.ok(text.includes('plugin instance failed to start'), 'the failures were logged');
  t.notOk(/PRIVATE KEY/.test(text), 'no PEM key in the log');
  for (const line of keyLines) t.notOk(text.includes(line), 'no key material in the log');
  const record = await server.call('GET', `${configs}/as2-receiver/plain`);
  t.notOk(/PRIVATE KEY/.test(record.raw));
});
