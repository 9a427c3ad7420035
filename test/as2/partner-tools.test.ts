// Covers POST /as2/remote-profiles/{id}/check-connection and /test-message: the steps against a
// real pier receiver over HTTP, against a local HTTPS peer (trusted by pinning, refused without),
// a closed port and an unknown name; 503 while the sender is stopped; which sender and
// organization are taken when left out; the check made by the running sender instance with the
// timeout it runs with (not one saved since); and a test message delivered through the normal flow.
import https from 'node:https';
import net from 'node:net';
import t from 'tap';
import { makeFixtures } from '../helpers/certificates.js';
import {
  freePort,
  organization,
  partner,
  startReceiver,
  startSender,
  storeCertificate,
  syncSignedCompressed,
} from '../helpers/as2.js';
import { runningOn, must, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const f = makeFixtures(t);
f.selfSigned('pier', '/O=pier/CN=pier.example');
f.openssl(
  'req -x509 -newkey rsa:2048 -nodes -keyout tls.key -out tls.crt -days 30 -subj /CN=127.0.0.1 -addext',
  'subjectAltName=IP:127.0.0.1',
);
const cert = await storeCertificate(server, f, 'pier');
const tlsCert = await storeCertificate(server, f, 'tls', false);
const url = await startReceiver(server);
const profile = syncSignedCompressed;
// One pier plays both sides: org A sends to partner B, whose receiving side is org B.
await organization(server, 'org-a', 'A', cert);
const partnerB = await partner(server, 'partner-b', 'B', url, cert, profile);
await organization(server, 'org-b', 'B', cert);
await partner(server, 'partner-a', 'A', url, cert, profile);

const peer = https.createServer({ key: f.read('tls.key'), cert: f.read('tls.crt') }, (_req, res) => {
  res.writeHead(405, { Allow: 'POST' }).end();
});
const peerPort = await freePort();
await new Promise<void>((resolve) => peer.listen(peerPort, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => peer.close(() => resolve())));
const closedPort = await freePort();
const pinned = await partner(server, 'pinned', 'P', `https://127.0.0.1:${peerPort}/as2`, cert, profile, {
  tls_trusted_certificate_ids: [tlsCert],
});
const unpinned = await partner(server, 'unpinned', 'U', `https://127.0.0.1:${peerPort}/as2`, cert, profile);
const closed = await partner(server, 'closed', 'C', `http://127.0.0.1:${closedPort}/as2`, cert, profile);
const nowhere = await partner(server, 'nowhere', 'N', 'http://nowhere.invalid/as2', cert, profile);

const check = (id: number, body: Record<string, unknown> = {}) =>
  server.call('POST', `/api/v1/as2/remote-profiles/${id}/check-connection`, { body });

t.test('check-connection', async (t) => {
  await must(server, '/plugins/configs?type=as2-sender', { name: 'out', max_attempts: 1, enabled: false });
  const stopped = await check(partnerB, { sender: 'out' });
  t.equal(stopped.status, 503);
  t.equal(stopped.body.error.code, 'SENDER_NOT_RUNNING');
  await runningOn(server, 'as2-sender', 'out');

  const ok = await check(partnerB);
  t.equal(ok.status, 200, ok.raw);
  t.equal(ok.body.data.ok, true, ok.raw);
  t.equal(ok.body.data.sender, 'out', 'the only sender is taken when left out');
  t.notOk('problem' in ok.body.data);
  for (const step of ['certificates', 'resolve', 'connect', 'tls', 'http'])
    t.equal(ok.body.data.steps[step].status, 'ok', `${step}: ${ok.body.data.steps[step].detail}`);
  t.match(ok.body.data.steps.http.detail, /405/, 'the receiver was asked with GET, not sent a message');
  t.match(ok.body.data.steps.tls.detail, /plain HTTP/);

  const viaPin = await check(pinned, { sender: 'out' });
  t.equal(viaPin.body.data.ok, true, viaPin.raw);
  t.match(viaPin.body.data.steps.tls.detail, /TLSv1\.[23]/);

  const notTrusted = await check(unpinned);
  t.equal(notTrusted.body.data.ok, false);
  t.match(notTrusted.body.data.problem, /^tls: /);
  t.match(
    notTrusted.body.data.problem,
    /self-signed or from a private authority: store it \(POST \/certificates\) and add its id to the partner profile's tls_trusted_certificate_ids$/,
    'the TLS failure says what fixes it',
  );
  t.equal(notTrusted.body.data.steps.http.status, 'skipped');

  const refused = await check(closed);
  t.equal(refused.body.data.ok, false);
  t.match(refused.body.data.problem, /^connect: .*ECONNREFUSED/);
  t.equal(refused.body.data.steps.resolve.status, 'ok');

  const unknown = await check(nowhere);
  t.equal(unknown.body.data.ok, false);
  t.match(unknown.body.data.problem, /^resolve: /);

  t.equal((await check(999999)).status, 404);
  const badSender = await check(partnerB, { sender: 'nope' });
  t.equal(badSender.status, 400);
  t.ok(badSender.body.error.details.sender);
  t.equal((await check(partnerB, { sender: 'out', extra: 1 })).status, 400);

  await startSender(server, 'other');
  const ambiguous = await check(partnerB);
  t.equal(ambiguous.status, 400, 'with two senders one must be named');
  t.match(ambiguous.body.error.details.sender, /other, out/);
});

t.test('the check is made by the running sender, with the settings it runs with', async (t) => {
  // A peer that takes the connection and never answers: the http step waits the sender's timeout.
  const held = new Set<net.Socket>();
  const silent = net.createServer((socket) => {
    held.add(socket);
    socket.on('close', () => held.delete(socket));
  });
  const silentPort = await freePort();
  await new Promise<void>((resolve) => silent.listen(silentPort, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of held) socket.destroy();
        silent.close(() => resolve());
      }),
  );
  const mute = await partner(server, 'mute', 'M', `http://127.0.0.1:${silentPort}/as2`, cert, profile);
  await startSender(server, 'patient', { timeout_seconds: 1 });

  const first = await check(mute, { sender: 'patient' });
  t.equal(first.status, 200, first.raw);
  t.equal(first.body.data.sender, 'patient');
  t.equal(first.body.data.steps.connect.status, 'ok');
  t.equal(first.body.data.problem, 'http: No HTTP answer within 1 s', "the sender's own timeout");

  const saved = await server.call('PUT', '/api/v1/plugins/configs/as2-sender/patient', {
    body: { timeout_seconds: 2 },
  });
  t.equal(saved.status, 200, saved.raw);
  const notApplied = await check(mute, { sender: 'patient' });
  t.equal(
    notApplied.body.data.problem,
    'http: No HTTP answer within 1 s',
    'a timeout saved but not applied is not the one the running sender checks with',
  );

  const restarted = await server.call('POST', '/api/v1/services/as2-sender/patient/restart', { body: {} });
  t.equal(restarted.status, 200, restarted.raw);
  const applied = await check(mute, { sender: 'patient' });
  t.equal(applied.body.data.problem, 'http: No HTTP answer within 2 s', 'after the restart, the new timeout');

  const stopped = await server.call('POST', '/api/v1/services/as2-sender/patient/stop', { body: {} });
  t.equal(stopped.status, 200, stopped.raw);
  const notRunning = await check(mute, { sender: 'patient' });
  t.equal(notRunning.status, 503);
  t.equal(notRunning.body.error.code, 'SENDER_NOT_RUNNING');
  t.equal(notRunning.body.error.message, 'The AS2 sender patient is not running');
});

t.test('test-message', async (t) => {
  const send = (body: Record<string, unknown>) =>
    server.call('POST', `/api/v1/as2/remote-profiles/${partnerB}/test-message`, { body });
  const noOrg = await send({ sender: 'out' });
  t.equal(noOrg.status, 400, 'two organizations and no route: name one');
  t.ok(noOrg.body.error.details.organization);
  t.equal((await send({ sender: 'out', organization: 'nope' })).status, 400);

  // A route from org-a to partner-b through `out` settles both choices.
  await must(server, '/routes', {
    name: 'test-route',
    source_plugin: 'in',
    from: 'org-a',
    to: 'partner-b',
    target_plugin: 'out',
  });
  const made = await send({});
  t.equal(made.status, 201, made.raw);
  t.match(made.body.data, { message_id: String, status: String, file_name: /^pier-test-.*\.txt$/ });
  const sent = await waitForMessage(
    server,
    made.body.data.message_id,
    (m) => m.status === 'Delivered' || m.status === 'Error',
    'the test message delivered',
  );
  t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error ?? '');
  t.equal(sent.deliveries[0].target, 'out');
  t.equal(sent.from, 'org-a');
  t.equal(sent.protocols.as2.mdn.disposition, 'automatic-action/MDN-sent-automatically; processed');
});
