// Covers the notification-email notifier against real SMTP servers on 127.0.0.1 (smtp-server): an alert mailed over STARTTLS and over implicit TLS with authentication, its subject, text and web UI link; the password write-only (never answered, sealed at rest, never in an error); cooldown and grouping as for the webhook; a 4xx reply retried, a 5xx reply or a refused login failed at once with the reason; the test notification; a save with bad settings refused and nothing stored.
import type { EntityManager } from '@mikro-orm/postgresql';
import t from 'tap';
import { raiseAlert, type AlertInput } from '../../flow/alerts/alerts.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sql } from '../helpers/database.js';
import { must, runningOn } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { startSmtp } from '../helpers/smtp.js';
import { serverCertificate } from '../helpers/tls.js';
import { waitFor } from '../helpers/wait.js';
import { SharedClock } from '../../protocol/clock.js';

const fixtures = makeFixtures(t);
serverCertificate(fixtures, 'smtp');
const key = fixtures.read('smtp.key');
const cert = fixtures.read('smtp.crt');
const password = 'smtp-pass-Do-not-leak-42';
const starttls = await startSmtp(t, { secure: false, key, cert, user: 'pier', password });
const implicit = await startSmtp(t, { secure: true, key, cert, user: 'pier', password });

const clock = SharedClock.stoppedAt(Date.parse('2026-06-01T08:00:00.000Z'));
const server = await startTestServer(t, {
  clock,
  env: { PUBLIC_URL: 'https://pier.example' },
});
const mailer = (
  name: string,
  port: number,
  security: 'starttls' | 'tls',
  more: Record<string, unknown> = {},
) =>
  must(server, '/plugins/configs?type=notification-email', {
    name,
    smtp_host: '127.0.0.1',
    smtp_port: port,
    smtp_security: security,
    smtp_username: 'pier',
    smtp_password: password,
    tls_ca: cert.toString('utf8'),
    from: 'pier@acme.example',
    to: ['ops@acme.example', 'oncall@acme.example'],
    min_severity: 'warning',
    cooldown_seconds: 600,
    group_window_seconds: 60,
    max_attempts: 3,
    retry_interval: 1,
    timeout_seconds: 5,
    ...more,
  });
await mailer('mail', starttls.port, 'starttls');
await runningOn(server, 'notification-email', 'mail');

const em = () => server.ctx.orm.em.fork() as EntityManager;
let subjects = 0;
const raise = (alert: Partial<AlertInput> = {}) =>
  raiseAlert(
    em(),
    {
      code: 'partner_unreachable',
      subject_kind: 'plugin-instance',
      subject_id: `http-poster:erp-${++subjects}`,
      subject_name: `erp-${subjects}`,
      summary: `The partner of http-poster:erp-${subjects} cannot be reached`,
      link: `/ui/instances/http-poster/erp-${subjects}`,
      ...alert,
    },
    clock.now(),
  );
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;
const rowsOf = (alertId: number) =>
  sql<Row>(server.db.url, 'select * from notification where alert_id = $1 order by id', [alertId]);
const outcome = (alertId: number, wanted: string, instance = 'mail') =>
  waitFor(
    async () => (await rowsOf(alertId)).find((r) => r.instance === instance && r.outcome === wanted),
    `notification of ${alertId} ${wanted}`,
    20_000,
  );

t.test('an alert is mailed over STARTTLS, authenticated, with its summary and web UI link', async (t) => {
  const id = await raise();
  const row = await outcome(id, 'delivered');
  t.match(row, { format: 'email', attempts: 1, last_error: null, test: false });
  t.equal(starttls.mails.length, 1);
  const mail = starttls.mails[0]!;
  t.match(mail, {
    from: 'pier@acme.example',
    to: ['ops@acme.example', 'oncall@acme.example'],
    user: 'pier',
    secure: true,
  });
  t.equal(mail.subject, '[pier] [critical] The partner of http-poster:erp-1 cannot be reached');
  t.match(mail.text, 'partner_unreachable: The partner of http-poster:erp-1 cannot be reached');
  t.match(mail.text, 'Open: https://pier.example/ui/instances/http-poster/erp-1');
  t.match(mail.headers['message-id'], `<notification-${row.id}@pier>`);
  t.equal(mail.headers['x-pier-alert-code'], 'partner_unreachable');
  t.notMatch(mail.raw, password);
});

t.test('an all-clear is mailed as resolved, never labelled critical', async (t) => {
  clock.advance(60 * 60_000);
  const down = await raise();
  await outcome(down, 'delivered');
  const [standing] = await sql<Row>(server.db.url, 'select subject_id from alert where id = $1', [down]);
  clock.advance(60 * 60_000);
  const up = await raise({
    code: 'partner_reachable',
    subject_id: standing!.subject_id,
    summary: `The partner of ${standing!.subject_id} is reachable again`,
  });
  await outcome(up, 'delivered');
  const mail = starttls.mails.at(-1)!;
  t.equal(mail.subject, `[pier] [resolved] The partner of ${standing!.subject_id} is reachable again`);
  t.equal(mail.headers['x-pier-severity'], 'resolved', 'a filter on critical mail skips it');
  t.equal(mail.headers['x-pier-alert-code'], 'partner_reachable');
  t.match(mail.text, '[resolved: ends critical partner_unreachable] partner_reachable: ');
});

t.test('the password is write-only: never answered, sealed at rest', async (t) => {
  const shown = await server.call('GET', '/api/v1/plugins/configs/notification-email/mail');
  t.equal(shown.status, 200);
  t.notMatch(shown.raw, password);
  t.notOk('smtp_password' in shown.body.data, 'not a field of the answer');
  const [stored] = await sql<Row>(
    server.db.url,
    "select settings, secrets from plugin_config where name = 'mail'",
  );
  t.notMatch(JSON.stringify(stored), password, 'not in the database in clear');
  t.ok(JSON.stringify(stored!.secrets).length > 20, 'a sealed value is stored');
});

t.test('cooldown and grouping as for the webhook', async (t) => {
  clock.advance(60 * 60_000);
  const first = await raise({ dedupe_key: 'partner_unreachable:same' });
  await outcome(first, 'delivered');
  clock.advance(2 * 60_000);
  const again = await raise({ dedupe_key: 'partner_unreachable:same' });
  t.match(await rowsOf(again), [{ outcome: 'suppressed_cooldown' }], 'the same key within the cooldown');

  clock.advance(60 * 60_000);
  const start = clock.now().getTime();
  const lead = await raise({ code: 'receipts_missing', subject_kind: 'partner', subject_id: 'p1' });
  await outcome(lead, 'delivered');
  const before = starttls.mails.length;
  clock.set(start + 5_000);
  const second = await raise({ code: 'receipts_missing', subject_kind: 'partner', subject_id: 'p2' });
  clock.set(start + 9_000);
  const third = await raise({ code: 'receipts_missing', subject_kind: 'partner', subject_id: 'p3' });
  clock.set(start + 61_000);
  server.ctx.runtime!.supervisor.poke('mail');
  await outcome(third, 'delivered');
  t.match(await rowsOf(second), [{ outcome: 'grouped' }]);
  t.equal(starttls.mails.length, before + 1, 'one email for both');
  const grouped = starttls.mails.at(-1)!;
  t.match(grouped.subject, '[pier] [warning] 2 alerts receipts_missing');
  t.match(grouped.text, 'pier raised 2 alerts of one kind');
  t.match(grouped.text, /erp-\d+[\s\S]*erp-\d+/);
});

t.test('implicit TLS (port 465 style) works the same', async (t) => {
  await mailer('mail-tls', implicit.port, 'tls');
  await runningOn(server, 'notification-email', 'mail-tls');
  clock.advance(60 * 60_000);
  const id = await raise();
  await outcome(id, 'delivered', 'mail-tls');
  t.equal(implicit.mails.length, 1);
  t.match(implicit.mails[0], { user: 'pier', secure: true, subject: /cannot be reached/ });
  await server.call('POST', '/api/v1/services/notification-email/mail-tls/stop', { body: {} });
});

t.test('a 4xx reply is tried again; a 5xx reply fails at once with the reason', async (t) => {
  clock.advance(60 * 60_000);
  starttls.refusals.push(451);
  const tries = starttls.tries;
  const later = await raise();
  const row = await outcome(later, 'delivered');
  t.equal(row.attempts, 2, 'the second attempt went through');
  t.equal(starttls.tries, tries + 2);

  clock.advance(60 * 60_000);
  starttls.refusals.push(554);
  const refused = await raise();
  const failed = await outcome(refused, 'failed');
  t.equal(failed.attempts, 1, 'not tried again');
  t.match(failed.last_error, new RegExp(`^127\\.0\\.0\\.1:${starttls.port}: .*554`));
});

t.test('a refused login fails at once and never shows the password', async (t) => {
  await must(server, '/plugins/configs?type=notification-email', {
    name: 'badlogin',
    smtp_host: '127.0.0.1',
    smtp_port: starttls.port,
    smtp_username: 'pier',
    smtp_password: 'not-the-password-xyz',
    tls_ca: cert.toString('utf8'),
    from: 'pier@acme.example',
    to: ['ops@acme.example'],
    max_attempts: 3,
    retry_interval: 1,
  });
  const answer = await server.call('POST', '/api/v1/plugins/configs/notification-email/badlogin/test', {
    body: {},
  });
  t.equal(answer.status, 200);
  t.match(answer.body.data, {
    test: true,
    format: 'email',
    outcome: 'failed',
    attempts: 1,
    last_error: /Invalid login|535/,
  });
  t.notMatch(answer.raw, 'not-the-password-xyz');
});

t.test('the test notification is mailed and logged', async (t) => {
  const before = starttls.mails.length;
  const answer = await server.call('POST', '/api/v1/plugins/configs/notification-email/mail/test', {
    body: {},
  });
  t.equal(answer.status, 200);
  t.match(answer.body.data, { test: true, code: 'test', outcome: 'delivered', attempts: 1, format: 'email' });
  t.equal(starttls.mails.length, before + 1);
  t.match(starttls.mails.at(-1)!.subject, '[pier] [info] [test] Test notification from pier to mail');
  t.match(starttls.mails.at(-1)!.text, 'This is a test notification from pier');
});

t.test('a server that is not there: failed with the reason', async (t) => {
  await must(server, '/plugins/configs?type=notification-email', {
    name: 'nowhere',
    smtp_host: '127.0.0.1',
    smtp_port: 1,
    smtp_security: 'tls',
    from: 'pier@acme.example',
    to: ['ops@acme.example'],
    max_attempts: 1,
  });
  const answer = await server.call('POST', '/api/v1/plugins/configs/notification-email/nowhere/test', {
    body: {},
  });
  t.match(answer.body.data, {
    outcome: 'failed',
    attempts: 1,
    last_error: /^127\.0\.0\.1:1: .*ECONNREFUSED/,
  });
});

t.test('bad settings are refused with a reason per field, and nothing is stored', async (t) => {
  // A login over a plain connection in both bodies; only the second has nothing else wrong.
  const plainLogin = {
    name: 'broken',
    smtp_host: 'mail.example.com',
    smtp_security: 'none',
    smtp_username: 'pier',
    smtp_password: 'x',
  };
  const answer = await server.call('POST', '/api/v1/plugins/configs?type=notification-email', {
    body: { ...plainLogin, from: 'not an address', to: [] },
  });
  t.equal(answer.status, 400);
  t.match(answer.body.error, {
    code: 'INVALID_INPUT',
    details: {
      from: 'Must be an email address such as ops@example.com',
      to: 'Name at least one recipient',
    },
  });
  t.same(await sql(server.db.url, "select 1 from plugin_config where name = 'broken'"), []);
  const none = await server.call('POST', '/api/v1/plugins/configs?type=notification-email', {
    body: { ...plainLogin, from: 'pier@acme.example', to: ['ops@acme.example'] },
  });
  t.equal(none.status, 400);
  t.match(none.body.error.details, { smtp_username: /needs starttls or tls/ });
  t.same(await sql(server.db.url, "select 1 from plugin_config where name = 'broken'"), []);
  const injected = await server.call('POST', '/api/v1/plugins/configs?type=notification-email', {
    body: {
      name: 'broken',
      smtp_host: 'mail.example.com',
      from: 'pier@acme.example',
      to: ['ops@acme.example'],
      subject_prefix: '[pier]\r\nBcc: thief@evil.example',
    },
  });
  t.equal(injected.status, 400, 'a subject prefix with a line break is refused when saved');
  t.same(injected.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: { subject_prefix: 'Must not contain control characters (a line break would start a header)' },
  });
  t.same(await sql(server.db.url, "select 1 from plugin_config where name = 'broken'"), []);
});
