// Covers POST /certificates/{id}/pkcs12: an administrator downloads a generated key with its
// certificate as a PKCS#12 file that openssl opens with the password (the same key, the same
// certificate) and refuses without it; the export is in the audit log without the password,
// which is on no log line either; a viewer and an operator are refused 403, a certificate
// without a key 404, a short or missing password 400, and another install takes the file back
// through the upload with its key.
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { loggerOptions } from '../../api/logger.js';
import { RecentLog } from '../../api/server-log/recent-lines.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { uploadCertificate } from '../helpers/upload.js';

const password = 'Pkcs12-Secret-Horse-42';
const recentLog = new RecentLog();
const written: string[] = [];
const logger = pino(loggerOptions({ LOG_LEVEL: 'debug' }, recentLog.keep), {
  write: (line: string) => written.push(line),
});
const server = await startTestServer(t, { logger, recentLog });
const other = await startTestServer(t);
const dir = mkdtempSync(path.join(tmpdir(), 'pier-p12-api-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

async function ok(s: TestServer, method: string, url: string, body?: unknown) {
  const answer = await s.call(method, url, body === undefined ? {} : { body });
  if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.raw}`);
  return answer.body.data;
}

const generated = await ok(server, 'POST', '/api/v1/certificates/generate', {
  name: 'Ours signing',
  key: { algorithm: 'rsa', bits: 2048 },
  subject: { common_name: 'as2.ours.example', organization: 'Ours' },
  output: 'self-signed',
});
const stored = await ok(server, 'GET', `/api/v1/certificates/${generated.id}`);

t.test('an administrator downloads a file openssl opens with the password', async (t) => {
  const answer = await server.call('POST', `/api/v1/certificates/${generated.id}/pkcs12`, {
    body: { password },
  });
  t.equal(answer.status, 200);
  t.equal(answer.headers['content-type'], 'application/x-pkcs12');
  t.equal(answer.headers['content-disposition'], 'attachment; filename="as2.ours.example.p12"');
  t.equal(answer.headers['cache-control'], 'no-store');
  const file = path.join(dir, 'ours.p12');
  writeFileSync(file, answer.bytes);
  const out = execFileSync('openssl', ['pkcs12', '-in', file, '-passin', 'stdin', '-nodes'], {
    input: `${password}\n`,
  }).toString();
  const certPem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(out)![0];
  const certificate = new X509Certificate(certPem);
  t.equal(
    certificate.fingerprint256.replace(/:/g, '').toLowerCase(),
    stored.fingerprint_sha256.replace(/:/g, '').toLowerCase(),
  );
  const keyPem = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(out)![0];
  t.ok(certificate.checkPrivateKey(createPrivateKey(keyPem)), 'the key belongs to the certificate');
  const wrong = spawnSync('openssl', ['pkcs12', '-in', file, '-passin', 'pass:not-the-password', '-nodes']);
  t.not(wrong.status, 0, 'openssl refuses another password');

  const events = await ok(server, 'GET', '/api/v1/audit?action=export');
  t.equal(events.events.length, 1);
  t.match(events.events[0], { kind: 'certificate', record_id: String(generated.id), actor: 'sa:tester' });
  t.notMatch(JSON.stringify(events), password, 'the audit event has no password');
  t.notMatch(written.join('\n'), password, 'no log line has the password');

  // Another install takes it back, key and all, through the ordinary upload.
  const uploaded = await uploadCertificate(other, {
    certificate: { name: 'ours.p12', file: answer.bytes },
    password,
  });
  t.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
  const token = uploaded.body.data.import_token;
  const imported = await other.call('POST', '/api/v1/certificates/import', {
    body: { import_token: token, certificates: [{ index: 0, description: 'Ours signing' }] },
  });
  t.equal(imported.status, 201, imported.raw);
  const there = (await ok(other, 'GET', '/api/v1/certificates')).certificates[0];
  t.match(there, { has_private_key: true, private_key_matches: true, common_name: 'as2.ours.example' });
});

t.test('refusals: roles, no key, the password', async (t) => {
  const tokenWithRole = async (name: string, role: string): Promise<string> => {
    await ok(server, 'POST', '/api/v1/service-accounts', { name, role });
    return (await ok(server, 'POST', '/api/v1/api-tokens', { service_account: name, label: 'x' })).token;
  };
  const url = `/api/v1/certificates/${generated.id}/pkcs12`;
  for (const role of ['viewer', 'operator']) {
    const answer = await server.call('POST', url, {
      body: { password },
      token: await tokenWithRole(`a-${role}`, role),
    });
    t.equal(answer.status, 403, role);
    t.equal(answer.body.error.code, 'INSUFFICIENT_ROLE');
  }
  const short = await server.call('POST', url, { body: { password: 'short' } });
  t.equal(short.status, 400);
  t.same(short.body.error.details, { password: 'Must be at least 8 characters' });
  const missing = await server.call('POST', url, { body: {} });
  t.same(missing.body.error.details, { password: 'Is required' });

  const pem = new X509Certificate(
    execFileSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path.join(dir, 'k.pem'),
      '-subj',
      '/CN=acme.example',
      '-days',
      '2',
    ]),
  ).toString();
  const partner = await uploadCertificate(server, {
    certificate: { name: 'acme.pem', file: Buffer.from(pem) },
    description: 'Acme',
  });
  t.equal(partner.status, 201, JSON.stringify(partner.body));
  const noKey = await server.call('POST', `/api/v1/certificates/${partner.body.data.id}/pkcs12`, {
    body: { password },
  });
  t.equal(noKey.status, 404);
  t.match(noKey.body.error.message, /holds only the certificate/);
  const unknown = await server.call('POST', '/api/v1/certificates/99999/pkcs12', { body: { password } });
  t.equal(unknown.status, 404);
  t.notMatch(written.join('\n'), password, 'no log line has the password');
});
