// Covers the certificate expiry check with an injected clock (alerts once per certificate entering the window or expiring, only for certificates a profile uses), its timer, and loading a certificate with its key by id for the AS2 library.
import { createSign, createVerify } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { pino } from 'pino';
import t from 'tap';
import { makeFixtures } from '../../test/helpers/certificates.js';
import { sql } from '../../test/helpers/database.js';
import { startTestServer } from '../../test/helpers/server.js';
import { uploadCertificate } from '../../test/helpers/upload.js';
import { checkCertificateExpiry, scheduleExpiryChecks } from './expiry-check.js';
import { CertificateNotFoundError, loadCertificateMaterial } from './material.js';

const server = await startTestServer(t);
const f = makeFixtures();
t.teardown(() => f.remove());
const em = () => server.database.orm.em.fork() as EntityManager;
const day = 24 * 60 * 60 * 1000;

f.selfSigned('ours', '/CN=ours.example', 365);
f.selfSigned('soon', '/CN=soon.example', 20);
f.selfSigned('unused', '/CN=unused.example', 10);
f.dated('gone', '/CN=gone.example', '20200101000000Z', '20210101000000Z');

async function store(name: string, withKey = false): Promise<number> {
  const answer = await uploadCertificate(server, {
    certificate: f.read(`${name}.crt`),
    ...(withKey ? { private_key: f.read(`${name}.key`) } : {}),
    description: `${name} certificate`,
  });
  if (answer.status !== 201) throw new Error(answer.raw);
  return answer.body.data.id;
}
const ours = await store('ours', true);
const soon = await store('soon');
const gone = await store('gone');
await store('unused');
const org = (await server.call('POST', '/api/v1/organizations', { body: { name: 'acme' } })).body.data.id;
const partner = (await server.call('POST', '/api/v1/partners', { body: { name: 'globex' } })).body.data.id;
await server.call('POST', '/api/v1/as2/local-profiles', {
  body: { local_organization_id: org, as2id: 'ACME', signing_certificate_id: ours },
});
const remote = await server.call('POST', '/api/v1/as2/remote-profiles', {
  body: {
    business_partner_id: partner,
    as2id: 'GLOBEX',
    endpoint: 'https://as2.globex.example/',
    partner_certificate_id: soon,
    signature_certificate_ids: [soon, gone],
  },
});
if (remote.status !== 201) throw new Error(remote.raw);

interface AlertRow {
  code: string;
  severity: string;
  subject_kind: string;
  subject_id: string;
  subject_name: string;
  summary: string;
  details: { days_remaining: number; users: { name: string; fields: string[] }[] };
  link: string;
}
const alerts = () =>
  sql<AlertRow>(
    server.db.url,
    'select code, severity, subject_kind, subject_id, subject_name, summary, details, link from alert order by id',
  );

t.test('used certificates in the window or expired raise one alert each', async (t) => {
  const now = new Date();
  t.equal(await checkCertificateExpiry(em(), now), 2);
  const rows = await alerts();
  t.same(
    rows.map((r) => [r.code, r.severity, r.subject_kind, Number(r.subject_id)]),
    [
      ['certificate_expired', 'critical', 'certificate', gone],
      ['certificate_expiring', 'warning', 'certificate', soon],
    ],
    'the unused certificate expiring in 10 days raises nothing',
  );
  t.equal(
    rows[0]!.summary,
    'Certificate gone certificate expired on 2021-01-01; it is used by the AS2 profile of partner globex (signature_certificate_ids)',
  );
  t.match(
    rows[1]!.summary,
    /^Certificate soon certificate expires in (19|20) days \(on \d{4}-\d{2}-\d{2}\); it is used by the AS2 profile of partner globex \(partner_certificate_id, signature_certificate_ids\)$/,
  );
  t.equal(rows[1]!.link, `/ui/certificates/${soon}`);
  t.same(
    rows[1]!.details.users.map((u) => u.name),
    ['globex'],
  );
  t.equal(await checkCertificateExpiry(em(), now), 0, 'the next day’s check raises nothing new');
});

t.test('as time passes, certificates enter the window and expire, each alerted once', async (t) => {
  const later = new Date(Date.now() + 25 * day);
  t.equal(await checkCertificateExpiry(em(), later), 1, 'the 20-day certificate has expired');
  const muchLater = new Date(Date.now() + 340 * day);
  t.equal(await checkCertificateExpiry(em(), muchLater), 1, 'the one-year certificate entered the window');
  t.equal(await checkCertificateExpiry(em(), muchLater), 0);
  const rows = await alerts();
  t.same(
    rows.slice(2).map((r) => [r.code, Number(r.subject_id)]),
    [
      ['certificate_expired', soon],
      ['certificate_expiring', ours],
    ],
  );
  t.match(
    rows[3]!.summary,
    /used by the AS2 profile of organization acme \(decryption_certificate_ids, signing_certificate_id\)$/,
  );
});

t.test('the timer runs the check and stops cleanly', async (t) => {
  await sql(server.db.url, 'delete from alert');
  const schedule = scheduleExpiryChecks({
    em,
    now: () => new Date(),
    logger: pino({ level: 'silent' }),
    firstDelayMs: 1,
    intervalMs: 20,
  });
  let rows: AlertRow[] = [];
  for (let i = 0; i < 100 && rows.length < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    rows = await alerts();
  }
  await schedule.stop();
  t.equal(rows.length, 2, 'the first run raised the alerts');
  await new Promise((resolve) => setTimeout(resolve, 60));
  t.equal((await alerts()).length, 2, 'later runs raise no duplicates');
});

t.test('the AS2 library loads a certificate and its private key by id', async (t) => {
  const material = await loadCertificateMaterial(em(), server.ctx.secrets, ours);
  t.equal(material.certificate.subject, 'CN=ours.example');
  t.match(material.pem, /^-----BEGIN CERTIFICATE-----\n/);
  t.equal(material.privateKeyMatches, true);
  const signature = createSign('sha256').update('hello').sign(material.privateKey!);
  t.ok(createVerify('sha256').update('hello').verify(material.certificate.publicKey, signature));
  const partnerOnly = await loadCertificateMaterial(em(), server.ctx.secrets, soon);
  t.equal(partnerOnly.privateKey, null);
  await t.rejects(
    loadCertificateMaterial(em(), server.ctx.secrets, 99999),
    new CertificateNotFoundError(99999),
  );
});
