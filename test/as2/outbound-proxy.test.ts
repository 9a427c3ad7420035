// Covers the outbound proxy of the AS2 sender over a real proxy (Debian's tinyproxy on loopback):
// a message sent through an instance's proxy_url, through one that asks for credentials (with
// them delivered; without them, or with a wrong password, refused with 407, over HTTP and for an
// HTTPS tunnel), through a proxy that is not there, through HTTP_PROXY of the environment, and a
// NO_PROXY host that goes direct; the proxy's own log shows which requests it passed on, and each
// error names the proxy and what it answered, never its password.
import t from 'tap';
import {
  agreement,
  freePort,
  startReceiver,
  startSender,
  storeCertificate,
  syncSigned,
  pierToItself,
} from '../helpers/as2.js';
import { finished, sendByHand } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { startPeer } from '../helpers/http-peer.js';
import { serverCertificate } from '../helpers/tls.js';
import { startTinyproxy, tinyproxyPath } from '../helpers/tinyproxy.js';

if (!tinyproxyPath()) {
  const why = 'tinyproxy is not installed (apt-get install tinyproxy): the outbound proxy is not tested here';
  // Under CI (.ci/run installs it) a missing proxy fails rather than skips.
  if (process.env.CI) t.fail(why);
  else t.comment(why);
  process.exit(0);
}

const open = (await startTinyproxy(t))!;
const guarded = (await startTinyproxy(t, { user: 'pier', password: 'proxy-Secret-9' }))!;

// The environment's proxy, read by each sender thread when it starts: localhost is exempt.
process.env.HTTP_PROXY = open.url;
process.env.NO_PROXY = 'localhost';
t.teardown(() => {
  delete process.env.HTTP_PROXY;
  delete process.env.NO_PROXY;
});

const server = await startTestServer(t);
const { f, cert, url } = await pierToItself(t, server);
const port = new URL(url).port;
const viaLocalhost = url.replace('127.0.0.1', 'localhost');

await startSender(server, 'open', { proxy_url: open.url });
await startSender(server, 'guarded', {
  proxy_url: guarded.url,
  proxy_username: 'pier',
  proxy_password: 'proxy-Secret-9',
});
await startSender(server, 'no-credentials', { proxy_url: guarded.url });
await startSender(server, 'wrong-password', {
  proxy_url: guarded.url,
  proxy_username: 'pier',
  proxy_password: 'wrong-Secret-7',
});
// A proxy that is not there: nothing listens on its port.
const closedPort = await freePort();
await startSender(server, 'unreachable', {
  proxy_url: `http://127.0.0.1:${closedPort}`,
  proxy_username: 'pier',
  proxy_password: 'proxy-Secret-9',
});
await startSender(server, 'environment');

await agreement(server, 'a', url, cert, syncSigned);
await agreement(server, 'b', viaLocalhost, cert, syncSigned);

// An HTTPS partner whose self-signed server certificate its profile pins: checked inside the tunnel.
serverCertificate(f, 'tls');
const tlsCert = await storeCertificate(server, f, 'tls');
const secureUrl = await startReceiver(server, 'secure', { tls_certificate_id: tlsCert });
await agreement(server, 'c', secureUrl, cert, syncSigned, { tls_trusted_certificate_ids: [tlsCert] });
const securePort = new URL(secureUrl).port;

// An HTTP endpoint the HTTP poster delivers to.
const peer = await startPeer(t, () => ({ status: 200, body: 'ok' }));
const poster = await server.call('POST', '/api/v1/plugins/configs?type=http-poster', {
  body: {
    name: 'poster',
    url: peer.url,
    proxy_url: guarded.url,
    proxy_username: 'pier',
    proxy_password: 'proxy-Secret-9',
    max_attempts: 1,
  },
});
if (poster.status !== 201) throw new Error(poster.raw);

function send(target: string, tag: string) {
  const fields = { from: `s${tag}`, to: `r${tag}`, target };
  const file = { name: `${target}.edi`, content: `UNA:+.? '\nUNB+UNOC:3+${target}'\n` };
  return sendByHand(server, fields, file, finished, `${target} finished`, 30_000);
}

/** Requests to the receiver the proxy's log names (tinyproxy logs each request line it passes on). */
async function passed(proxy: typeof open): Promise<number> {
  const lines = (await proxy.log()).split('\n');
  return lines.filter((l) => l.includes(`Request`) && l.includes(`127.0.0.1:${port}/as2`)).length;
}

t.test('through the instance’s proxy_url', async (t) => {
  const before = await passed(open);
  t.equal((await send('open', 'a')).status, 'Delivered');
  t.ok((await passed(open)) > before, 'the proxy passed the request on');
});

t.test('through a proxy that asks for credentials: with them delivered, without refused', async (t) => {
  const before = await passed(guarded);
  t.equal((await send('guarded', 'a')).status, 'Delivered');
  t.ok((await passed(guarded)) > before, 'the guarded proxy passed it on');
  const refused = await send('no-credentials', 'a');
  t.equal(refused.status, 'Error');
  t.equal(
    refused.deliveries[0].last_error,
    `The proxy 127.0.0.1:${guarded.port} (the instance's proxy_url) answered HTTP 407 Proxy Authentication Required to the request for 127.0.0.1:${port}: check proxy_username and proxy_password`,
    'the proxy’s 407 is the delivery’s error, the proxy named',
  );
  t.notMatch(JSON.stringify(refused), /proxy-Secret-9/);
});

t.test('a wrong proxy password: the proxy named, never the password', async (t) => {
  // tinyproxy answers a wrong password with 401, which over plain HTTP could as well be the
  // partner's: the error says it came through the proxy.
  const refused = await send('wrong-password', 'a');
  t.equal(refused.status, 'Error');
  t.equal(
    refused.deliveries[0].last_error,
    `The answer through the proxy 127.0.0.1:${guarded.port} (the instance's proxy_url) to the request for 127.0.0.1:${port} was HTTP 401 Unauthorized`,
  );
  // Over HTTPS the proxy's answer to CONNECT is the proxy's own.
  const tunnel = await send('wrong-password', 'c');
  t.equal(
    tunnel.deliveries[0].last_error,
    `The proxy 127.0.0.1:${guarded.port} (the instance's proxy_url) answered HTTP 401 Unauthorized to a tunnel to 127.0.0.1:${securePort}: check proxy_username and proxy_password`,
  );
  t.notMatch(JSON.stringify([refused, tunnel]), /wrong-Secret-7|proxy-Secret-9/, 'no password in either');
});

t.test('HTTPS: a tunnel the proxy refuses with 407 is the proxy’s answer, not the partner’s', async (t) => {
  const refused = await send('no-credentials', 'c');
  t.equal(refused.status, 'Error');
  t.equal(
    refused.deliveries[0].last_error,
    `The proxy 127.0.0.1:${guarded.port} (the instance's proxy_url) answered HTTP 407 Proxy Authentication Required to a tunnel to 127.0.0.1:${securePort}: check proxy_username and proxy_password`,
  );
});

t.test('a proxy that cannot be reached is named, not the partner', async (t) => {
  const failed = await send('unreachable', 'a');
  t.equal(failed.status, 'Error');
  t.equal(
    failed.deliveries[0].last_error,
    `ECONNREFUSED: the proxy 127.0.0.1:${closedPort} (the instance's proxy_url) could not be reached: connect ECONNREFUSED 127.0.0.1:${closedPort}`,
  );
  t.notMatch(JSON.stringify(failed), /proxy-Secret-9/, 'no password in the message');
});

t.test('HTTPS through CONNECT, the pinned certificate verified inside the tunnel', async (t) => {
  t.equal((await send('open', 'c')).status, 'Delivered');
  t.match(await open.log(), `CONNECT 127.0.0.1:${securePort}`, 'the proxy opened a tunnel');
});

t.test('the HTTP poster through a proxy with credentials', async (t) => {
  const fields = { from: 'sa', to: 'ra', target: 'poster' };
  const file = { name: 'erp.edi', content: "UNA:+.? '\n" };
  const done = await sendByHand(server, fields, file, finished, 'posted', 30_000);
  t.equal(done.status, 'Delivered');
  t.equal(peer.requests.length, 1);
  t.equal(
    peer.requests[0]!.headers['proxy-authorization'],
    undefined,
    'the proxy’s credentials stop at the proxy',
  );
  t.match(await guarded.log(), `POST ${peer.url}`);
});

t.test('the connection check shows the proxy step', async (t) => {
  const partners = (await server.call('GET', '/api/v1/partners?q=ra')).body.data.partners;
  const id = partners.find((p: { name: string }) => p.name === 'ra').id;
  const check = async (sender: string) => {
    const answer = await server.call('POST', `/api/v1/as2/remote-profiles/${id}/check-connection`, {
      body: { sender },
    });
    if (answer.status !== 200) throw new Error(answer.raw);
    return answer.body.data;
  };
  const through = await check('guarded');
  t.equal(through.ok, true, JSON.stringify(through.steps));
  t.equal(through.steps.proxy.detail, `Through ${guarded.url} (the instance's proxy_url)`);
  t.match(through.steps.connect.detail, `port ${guarded.port}`, 'the connection opened is the proxy’s');
  const refused = await check('no-credentials');
  t.equal(refused.ok, false);
  t.match(refused.problem, /^http: .*407.*from the proxy/);
  t.notMatch(JSON.stringify(through) + JSON.stringify(refused), /proxy-Secret-9/);
});

t.test('through HTTP_PROXY, and direct for a NO_PROXY host', async (t) => {
  const before = await passed(open);
  t.equal((await send('environment', 'a')).status, 'Delivered');
  t.equal(await passed(open), before + 1, 'HTTP_PROXY carried the message to 127.0.0.1');
  const log = await open.log();
  t.equal((await send('environment', 'b')).status, 'Delivered');
  t.equal(await open.log(), log, 'localhost is in NO_PROXY: the proxy saw nothing');
});
