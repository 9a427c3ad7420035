// Covers how a failure through an outbound proxy is told: the proxy named by host and port (its
// default port written out) and where it was set, what it answered, and never its credentials.
import t from 'tap';
import { proxiedAnswer, proxyFailure, proxyFor } from './proxy.js';

const partner = new URL('http://partner.example:4080/as2');
const tunnelled = new URL('https://partner.example/as2');
const configured = proxyFor(
  partner,
  { proxy_url: 'http://proxy.example:3128', proxy_username: 'pier' },
  'pw-Secret-1',
)!;
const fromEnvironment = proxyFor(partner, { proxy_url: '', proxy_username: '' }, undefined, {
  HTTP_PROXY: 'http://ops:env-Secret-2@proxy.example',
})!;

t.test('a proxy that cannot be reached', async (t) => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:3128'), {
    code: 'ECONNREFUSED',
    syscall: 'connect',
  });
  t.equal(
    proxyFailure(configured, partner, refused),
    "ECONNREFUSED: the proxy proxy.example:3128 (the instance's proxy_url) could not be reached: connect ECONNREFUSED 10.0.0.9:3128",
  );
  const unknown = Object.assign(new Error('getaddrinfo ENOTFOUND proxy.example'), { code: 'ENOTFOUND' });
  t.equal(
    proxyFailure(fromEnvironment, partner, unknown),
    'ENOTFOUND: the proxy proxy.example:80 (HTTP_PROXY) could not be reached: getaddrinfo ENOTFOUND proxy.example',
  );
});

t.test('a failure after the proxy was reached names both', async (t) => {
  const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  t.equal(
    proxyFailure(configured, partner, reset),
    "ECONNRESET: through the proxy proxy.example:3128 (the instance's proxy_url), to partner.example:4080: socket hang up",
  );
});

t.test("the proxy's own answers, and one that may be the partner's", async (t) => {
  t.equal(
    proxiedAnswer(configured, partner, { status: 407, statusText: 'Proxy Authentication Required' }),
    "The proxy proxy.example:3128 (the instance's proxy_url) answered HTTP 407 Proxy Authentication Required to the request for partner.example:4080: check proxy_username and proxy_password",
  );
  t.equal(
    proxiedAnswer(fromEnvironment, tunnelled, { status: 407, statusText: '', tunnelRefused: true }),
    'The proxy proxy.example:80 (HTTP_PROXY) answered HTTP 407 to a tunnel to partner.example: check the credentials in HTTP_PROXY',
  );
  t.equal(
    proxiedAnswer(configured, tunnelled, { status: 502, statusText: 'Bad Gateway', tunnelRefused: true }),
    "The proxy proxy.example:3128 (the instance's proxy_url) answered HTTP 502 Bad Gateway to a tunnel to partner.example",
  );
  t.equal(
    proxiedAnswer(configured, partner, { status: 503, statusText: 'Service Unavailable' }),
    "The answer through the proxy proxy.example:3128 (the instance's proxy_url) to the request for partner.example:4080 was HTTP 503 Service Unavailable",
  );
});

t.test('no credentials in any of it', async (t) => {
  const texts = [
    proxyFailure(configured, partner, Object.assign(new Error('x'), { code: 'ECONNREFUSED' })),
    proxyFailure(fromEnvironment, partner, new Error('x')),
    proxiedAnswer(configured, partner, { status: 407, statusText: '' }),
    proxiedAnswer(fromEnvironment, partner, { status: 407, statusText: '' }),
  ];
  t.notMatch(texts.join('\n'), /Secret|pier@|ops/);
});
