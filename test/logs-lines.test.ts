// Covers the log's lines for 3 a.m.: ISO-8601 times; a request id on every line of a
// request, answered in X-Request-Id; the token's user and id on every line of an API request and
// the user on a web UI request's; a line per delivery attempt (retries with their next time, then
// the failure); a refused AS2 message naming the check that failed and the certificates it was
// checked with; the message id on every line about a message, from worker threads too; no secret
// on any line; and LOG_FORMAT=pretty for a terminal.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import t from 'tap';
import { loggerOptions } from '../api/logger.js';
import { setUserPassword } from '../api/resources/users/service.js';
import {
  freePort,
  organization,
  partner,
  postAs2,
  startReceiver,
  storeCertificate,
  syncSigned,
} from './helpers/as2.js';
import { makeFixtures } from './helpers/certificates.js';
import { must, sendByHand, waitForMessage } from './helpers/flow.js';
import { startTestServer } from './helpers/server.js';
import { uploadCertificate } from './helpers/upload.js';
import { waitFor } from './helpers/wait.js';

interface Line {
  level: number;
  time: string;
  msg: string;
  [key: string]: unknown;
}

const written: string[] = [];
const logger = pino(loggerOptions({ LOG_LEVEL: 'info' }), {
  write: (line: string) => void written.push(line),
});
const lines = (): Line[] => written.map((l) => JSON.parse(l) as Line);

const server = await startTestServer(t, { developerBuild: true, logger });
const fixtures = makeFixtures(t);
const root = path.resolve(import.meta.dirname, '..');
const capture = (name: string) => readFileSync(path.join(root, 'test/fixtures', name));

const secrets = {
  poster: 'poster-basic-secret-4711',
  partner: 'partner-basic-secret-0815',
  payload: 'payload-text-never-logged',
  person: 'correct horse battery staple 77',
};

t.test('every line has an ISO-8601 UTC time', async (t) => {
  await server.call('GET', '/api/v1/organizations');
  t.ok(lines().length > 0);
  for (const line of lines()) t.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, line.msg);
});

t.test('an API request: its id on its lines and in X-Request-Id, the token’s user and id', async (t) => {
  const answer = await server.call('GET', '/api/v1/partners');
  const id = answer.headers['x-request-id'] as string;
  t.match(id, /^[0-9a-f-]{36}$/, 'a UUID, unique across the processes of a cluster');
  const line = await waitFor(
    () => lines().find((l) => l.msg === 'request' && l.request_id === id),
    'the request line',
  );
  t.match(line, { route: '/api/v1/partners', status: 200, user: 'sa:tester', token_id: Number });

  // A proxy's own id is kept; a header that is not a plausible id is replaced.
  const given = await server.call('GET', '/api/v1/partners', { headers: { 'x-request-id': 'lb-7f3a.42' } });
  t.equal(given.headers['x-request-id'], 'lb-7f3a.42');
  const odd = await server.call('GET', '/api/v1/partners', { headers: { 'x-request-id': 'a b\nc' } });
  t.match(odd.headers['x-request-id'], /^[0-9a-f-]{36}$/);

  // A line logged inside the request (a token refused) carries the id too.
  const refused = await server.call('GET', '/api/v1/partners', {
    token: 'pier_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  });
  t.equal(refused.status, 401);
  const rid = refused.headers['x-request-id'];
  const ofRefused = await waitFor(() => {
    const found = lines().filter((l) => l.request_id === rid);
    return found.length >= 1 && found.some((l) => l.msg === 'request') ? found : undefined;
  }, 'the refused request’s lines');
  t.ok(ofRefused.every((l) => l.request_id === rid));
  t.match(
    ofRefused.find((l) => l.msg === 'request'),
    { status: 401, user: null },
  );
});

t.test('a web UI request names its user', async (t) => {
  const page = await server.call('GET', '/ui/partners', { token: null });
  t.equal(page.status, 200);
  const line = await waitFor(
    () => lines().find((l) => l.msg === 'request' && l.request_id === page.headers['x-request-id']),
    'the UI request line',
  );
  t.match(line, { route: '/ui/partners', user: 'developer' });
});

t.test('a signed-in person’s web UI requests name them; the password is never logged', async (t) => {
  const mine: string[] = [];
  const release = await startTestServer(t, {
    env: { PUBLIC_URL: 'https://pier.example.com' },
    logger: pino(loggerOptions({ LOG_LEVEL: 'info' }), { write: (line: string) => void mine.push(line) }),
  });
  await setUserPassword(release.ctx, { kind: 'developer', actor: 'system' }, 'root', secrets.person);
  const signIn = await release.app.inject({
    method: 'POST',
    url: '/ui/auth/local',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://pier.example.com' },
    payload: `name=root&password=${encodeURIComponent(secrets.person)}`,
  });
  t.equal(signIn.statusCode, 303);
  const cookie = [signIn.headers['set-cookie']]
    .flat()
    .find((c) => c?.startsWith('pier_session='))!
    .split(';')[0]!;
  const page = await release.app.inject({ method: 'GET', url: '/ui/partners', headers: { cookie } });
  t.equal(page.statusCode, 200);
  const line = await waitFor(
    () =>
      mine
        .map((l) => JSON.parse(l) as Line)
        .find((l) => l.msg === 'request' && l.request_id === page.headers['x-request-id']),
    'the signed-in request line',
  );
  t.match(line, { route: '/ui/partners', status: 200, user: 'root' });
  t.notOk(mine.join('').includes(secrets.person), 'no password');
  t.notOk(mine.join('').includes(cookie.split('=')[1]!), 'no session cookie');
});

t.test('each delivery attempt has a line: retrying with its next time, then failed', async (t) => {
  await must(server, '/organizations', { name: 'acme' });
  await must(server, '/partners', { name: 'globex' });
  const closed = await freePort();
  await must(server, '/plugins/configs?type=http-poster', {
    name: 'erp',
    url: `http://127.0.0.1:${closed}/in`,
    http_basic_username: 'pier',
    http_basic_password: secrets.poster,
    max_attempts: 2,
    retry_interval: 1,
    timeout_seconds: 5,
  });
  const message = await sendByHand(
    server,
    { from: 'acme', to: 'globex', target: 'erp' },
    { name: 'order.csv', content: secrets.payload },
    (m) => m.status === 'Error',
    'the message fails after two attempts',
  );
  const ofMessage = () => lines().filter((l) => l.message_id === message.id);
  const failedLine = await waitFor(
    () => ofMessage().find((l) => l.msg === 'delivery failed'),
    'the failure is logged',
  );
  const retrying = ofMessage().filter((l) => l.msg === 'delivery retrying');
  t.equal(retrying.length, 1, 'one line for the first attempt');
  t.match(retrying[0], {
    level: 40,
    instance: 'http-poster:erp',
    target: 'erp',
    state: 'retrying',
    attempts: 1,
    last_error: /ECONNREFUSED|refused/,
    next_attempt_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
  });
  t.match(failedLine, { level: 40, instance: 'http-poster:erp', state: 'failed', attempts: 2 });
  t.match(
    ofMessage().find((l) => l.msg === 'message accepted'),
    { file_name: 'order.csv', target: undefined },
  );
  // The upload's own line, written inside its request: the request id and the token's user.
  t.match(
    ofMessage().find((l) => l.msg === 'message sent by hand'),
    { request_id: /^[0-9a-f-]{36}$/, user: 'sa:tester', token_id: Number },
  );
});

t.test('a refused AS2 message says which check failed and with which certificates', async (t) => {
  // Our side holds the key the captured messages are encrypted to; the partner is set up with a
  // signature certificate that did not sign them.
  const ours = await uploadCertificate(server, {
    certificate: capture('as2-line-endings/certificates/server.crt'),
    private_key: capture('as2-line-endings/certificates/server.key'),
    description: 'ours',
  });
  t.equal(ours.status, 201);
  fixtures.selfSigned('wrong', '/CN=wrong-partner.example', 365);
  const wrong = await storeCertificate(server, fixtures, 'wrong');
  const url = await startReceiver(server, 'in');
  await organization(server, 'ro', 'Rx', ours.body.data.id as number);
  await partner(server, 'sp', 'Sx', url, wrong, syncSigned, {
    http_basic_user: 'x',
    http_basic_password: secrets.partner,
  });
  const enveloped = { 'Content-Type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m' };

  const signedByOther = await postAs2(url, capture('as2-line-endings/from_openas2/base64_crlf.pkcs7'), {
    ...enveloped,
    'Message-ID': '<refused-signature@test>',
  });
  t.equal(signedByOther.status, 200);
  const authLine = await waitFor(
    () => lines().find((l) => l.msg === 'message refused' && l.as2_message_id === '<refused-signature@test>'),
    'the refusal is logged',
  );
  t.match(authLine, {
    instance: 'as2-receiver:in',
    message_id: /^[0-9a-f-]{36}$/,
    check: 'authentication-failed',
    refusal:
      /^Refused: processed\/Error: authentication-failed: .*; the partner's certificates checked: wrong-partner\.example \(serial [0-9A-F]+, valid until \d{4}-\d\d-\d\d\)$/,
  });

  // Encrypted to a certificate pier does not hold (pyas2lib's receiver).
  const pss = capture('pyas2lib-pss/signed-encrypted-compressed.http');
  const body = pss.subarray(pss.indexOf('\r\n\r\n') + 4);
  await postAs2(url, body, { ...enveloped, 'Message-ID': '<refused-decryption@test>' });
  const decryptLine = await waitFor(
    () =>
      lines().find((l) => l.msg === 'message refused' && l.as2_message_id === '<refused-decryption@test>'),
    'the second refusal is logged',
  );
  t.match(decryptLine, {
    check: 'decryption-failed',
    refusal:
      /decryption-failed: .*; our certificates tried: [^ ]+ \(serial [0-9A-F]+, valid until \d{4}-\d\d-\d\d\)$/,
  });
  const stored = await waitForMessage(
    server,
    decryptLine.message_id as string,
    (m) => m.status === 'Refused',
    'refused',
  );
  t.ok(stored, 'the line’s message id is the stored message');
});

t.test('no secret on any line', async (t) => {
  const all = written.join('');
  t.ok(all.length > 1000, 'the log has lines to look at');
  for (const [what, value] of Object.entries(secrets)) t.notOk(all.includes(value), `no ${what} secret`);
  t.notOk(all.includes(server.token), 'no API token');
  t.notOk(all.includes('pier-test-secret-key'), 'no secret key');
  t.notMatch(all, /BEGIN (RSA |EC )?PRIVATE KEY/, 'no private key');
  t.notMatch(all, /[Aa]uthorization":"Bearer/, 'no Authorization header');
});

t.test('LOG_FORMAT=pretty writes a line a person reads; another value is refused', async (t) => {
  const script =
    "import { makeLogger } from './api/logger.ts';" +
    "makeLogger(process.env).warn({ message_id: 'm-1', password: 'hunter2' }, 'delivery retrying');";
  const run = promisify(execFile);
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, LOG_FORMAT: 'pretty' },
  });
  t.match(stdout, /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\] WARN: delivery retrying\n/);
  t.match(stdout, /message_id: "m-1"/);
  t.notMatch(stdout, /hunter2/, 'censored in the pretty form too');
  t.notMatch(stdout, /^\{/m, 'not JSON');
  await t.rejects(
    run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env: { ...process.env, LOG_FORMAT: 'xml' },
    }),
    /LOG_FORMAT must be json or pretty, not "xml"/,
  );
});
