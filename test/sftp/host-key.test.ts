// Covers the SFTP host key rules against a real sshd: an unpinned instance transfers nothing and shows the server's fingerprint (service error and connection check), pinning takes only the fingerprint the server presents, the connection check reports each step, a changed host key is refused with a host_key_changed alert and nothing written, and pinning the new key lets the retried delivery through; plus the configuration's validation.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { fileFlow, must, parties, runningOn, tempDir, waitForMessages } from '../helpers/flow.js';
import type { Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { startSshd } from '../helpers/sshd.js';
import { waitFor } from '../helpers/wait.js';

const server = await startTestServer(t);
const sshd = await startSshd(t);
const dir = await tempDir(t);
await parties(server);
const outbox = await sshd.directory('outbox');
const base = { host: sshd.host, port: sshd.port, username: sshd.user, remote_directory: outbox };
const api = (path: string) => `/api/v1/plugins/configs/sftp-sender/${path}`;

t.test('configurations are validated like every other: each problem named on its property', async (t) => {
  const bad = await server.call('POST', '/api/v1/plugins/configs?type=sftp-sender', {
    body: { name: 'bad', ...base, host_key_fingerprint: 'MD5:12:34', remote_directory: 'relative' },
  });
  t.equal(bad.status, 400);
  t.match(bad.body.error, {
    code: 'INVALID_INPUT',
    message: 'Validation failed',
    details: {
      host_key_fingerprint: /SHA256 fingerprint/,
      remote_directory: 'Must be an absolute path on the server',
    },
  });
  const noCredential = await server.call('POST', '/api/v1/plugins/configs?type=sftp-sender', {
    body: { name: 'bad', ...base },
  });
  t.match(noCredential.body.error.details, { password: 'A password or a private key is required' });
  const notAKey = await server.call('POST', '/api/v1/plugins/configs?type=sftp-poller', {
    body: { name: 'bad', ...base, private_key: 'not a key', to: 'acme', from: 'globex' },
  });
  t.match(notAKey.body.error.details, {
    private_key: /not a private key/,
    processed_directory: 'Required when after_take is move',
  });
  t.notMatch(notAKey.raw, 'not a key', 'the key is never echoed');
  const missing = await server.call('POST', api('nothing/check-connection'), { body: {} });
  t.match(missing, { status: 404, body: { error: { code: 'NOT_FOUND' } } });
  const doc = await server.call('GET', '/api/v1/openapi.yaml');
  t.match(doc.raw, /sftp-poller/);
  t.match(doc.raw, /\/plugins\/configs\/sftp-sender\/\{name\}\/check-connection/);
});

t.test(
  'first contact: an unpinned instance does not start, and shows the key the server presents',
  async (t) => {
    const made = await must(server, '/plugins/configs?type=sftp-sender', {
      name: 'partner',
      ...base,
      password: sshd.password,
      retry_interval: 1,
    });
    t.equal(made.body.data.host_key_fingerprint, '');
    t.equal(made.body.data.service.status, 'error');
    t.match(made.body.data.service.error, `The server presents ${sshd.fingerprint}`);
    const check = await server.call('POST', api('partner/check-connection'), { body: {} });
    t.equal(check.status, 200);
    t.match(check.body.data, {
      ok: false,
      problem: /^host_key: The host key of .* is not pinned/,
      host_key: { presented: sshd.fingerprint, pinned: '', matches: false },
      steps: {
        resolve: { status: 'ok' },
        connect: { status: 'ok' },
        host_key: { status: 'failed' },
        authenticate: { status: 'skipped' },
        list: { status: 'skipped' },
        write: { status: 'skipped' },
      },
    });
    t.notMatch(check.raw, sshd.password);
  },
);

t.test('pinning takes only the fingerprint the server presents', async (t) => {
  const wrong = await server.call('POST', api('partner/pin-host-key'), {
    body: { fingerprint: `SHA256:${'A'.repeat(43)}` },
  });
  t.match(wrong, {
    status: 400,
    body: {
      error: {
        code: 'INVALID_INPUT',
        details: {
          fingerprint: `The server presents ${sshd.fingerprint} now, not this fingerprint; nothing was pinned`,
        },
      },
    },
  });
  const malformed = await server.call('POST', api('partner/pin-host-key'), { body: { fingerprint: 'abc' } });
  t.match(malformed.body.error, { code: 'INVALID_INPUT', details: { fingerprint: /SHA256 fingerprint/ } });
  const pinned = await server.call('POST', api('partner/pin-host-key'), {
    body: { fingerprint: sshd.fingerprint },
  });
  t.equal(pinned.status, 200);
  t.equal(pinned.body.data.host_key_fingerprint, sshd.fingerprint);
  const audit = await server.call('GET', '/api/v1/audit?kind=plugin-config&record_name=sftp-sender/partner');
  t.ok(
    (audit.body.data.events as { changes: { field: string }[] }[]).some((e) =>
      e.changes.some((c) => c.field === 'host_key_fingerprint'),
    ),
    'the pin is audited',
  );
  await runningOn(server, 'sftp-sender', 'partner');
  const check = await server.call('POST', api('partner/check-connection'), { body: {} });
  t.match(check.body.data, {
    ok: true,
    host_key: { presented: sshd.fingerprint, pinned: sshd.fingerprint, matches: true },
    steps: {
      host_key: { status: 'ok', detail: `${sshd.fingerprint} as pinned` },
      authenticate: { status: 'ok', detail: /password/ },
      list: { status: 'ok' },
      write: { status: 'ok', detail: /Wrote and removed/ },
    },
  });
  t.same(await readdir(outbox), [], 'the probe file was removed');
});

t.test('a wrong password fails the authenticate step', async (t) => {
  await must(server, '/plugins/configs?type=sftp-poller', {
    name: 'wrong-login',
    ...base,
    host_key_fingerprint: sshd.fingerprint,
    password: 'not-the-password',
    after_take: 'delete',
    from: 'globex',
    to: 'acme',
    enabled: false,
  });
  const check = await server.call(
    'POST',
    '/api/v1/plugins/configs/sftp-poller/wrong-login/check-connection',
    {
      body: {},
    },
  );
  t.match(check.body.data, {
    ok: false,
    problem: /^authenticate: .* refused the login/,
    steps: { host_key: { status: 'ok' }, authenticate: { status: 'failed' }, list: { status: 'skipped' } },
  });
  t.notMatch(check.raw, 'not-the-password');
});

t.test(
  'a changed host key is refused with an alert; pinning the new one lets the delivery through',
  async (t) => {
    await mkdir(path.join(dir, 'out', 'globex'), { recursive: true });
    await fileFlow(server, dir, {
      source: 'out',
      processed: 'sent',
      poller: { polling_interval: 1 },
      target: 'partner',
    });
    await runningOn(server, 'file-poller', 'out');
    const first = (l: Message[]) => l.find((m) => m.file_name === 'before.edi' && m.status === 'Delivered');
    await writeFile(path.join(dir, 'out', 'globex', 'before.edi'), 'before');
    await waitForMessages(server, '', (l) => !!first(l), 'before.edi delivered', 30_000);

    const old = sshd.fingerprint;
    await sshd.restart({ newHostKey: true });
    t.not(sshd.fingerprint, old, 'the server has a new host key');
    await writeFile(path.join(dir, 'out', 'globex', 'after.edi'), 'after');
    const retrying = (l: Message[]) =>
      l.find((m) => m.file_name === 'after.edi' && m.deliveries[0]?.state === 'retrying');
    const list = await waitForMessages(server, '', (l) => !!retrying(l), 'after.edi retrying', 30_000);
    t.match(
      retrying(list).deliveries[0].last_error,
      `changed: the server presents ${sshd.fingerprint}, pinned is ${old}`,
    );
    t.same(
      (await readdir(path.join(outbox, 'acme'))).sort(),
      ['before.edi'],
      'nothing written to the server',
    );
    const alerts = await waitFor(
      async () => {
        const rows = await sql(server.db.url, "select * from alert where code = 'host_key_changed'");
        return rows.length > 0 ? rows : undefined;
      },
      'host_key_changed raised',
      10_000,
    );
    t.match(alerts[0], {
      severity: 'critical',
      subject_kind: 'plugin-instance',
      subject_id: 'sftp-sender:partner',
      link: '/ui/instances/sftp-sender/partner',
      details: { presented: sshd.fingerprint, pinned: old },
    });

    const pinned = await server.call('POST', api('partner/pin-host-key'), {
      body: { fingerprint: sshd.fingerprint },
    });
    t.equal(pinned.status, 200);
    t.equal(pinned.body.data.restart_needed, true, 'the running instance still has the old pin');
    await server.call('POST', '/api/v1/services/sftp-sender/partner/restart', { body: {} });
    const done = (l: Message[]) => l.find((m) => m.file_name === 'after.edi' && m.status === 'Delivered');
    await waitForMessages(server, '', (l) => !!done(l), 'after.edi delivered', 30_000);
    t.equal(await readFile(path.join(outbox, 'acme', 'after.edi'), 'utf8'), 'after');
  },
);
