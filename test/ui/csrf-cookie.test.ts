// Covers the web UI's CSRF cookie (pier_csrf): Secure exactly when PUBLIC_URL is https, like the session cookie, even when the request reaches pier over plain http behind a proxy that ends TLS.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const csrfCookieOf = async (server: Awaited<ReturnType<typeof startTestServer>>) => {
  // inject makes a plain http request, as a TLS-terminating proxy forwards it.
  const page = await server.app.inject({ method: 'GET', url: '/ui' });
  t.equal(page.statusCode, 200);
  return [page.headers['set-cookie']].flat().find((c) => c?.startsWith('pier_csrf='));
};

t.test('behind an https PUBLIC_URL the CSRF cookie is Secure', async (t) => {
  const server = await startTestServer(t, {
    developerBuild: true,
    env: { PUBLIC_URL: 'https://pier.example.com' },
  });
  t.match(
    await csrfCookieOf(server),
    /^pier_csrf=[A-Za-z0-9_-]{43}; Path=\/ui; HttpOnly; SameSite=Strict; Secure$/,
  );
});

t.test('with an http PUBLIC_URL it is not', async (t) => {
  const server = await startTestServer(t, {
    developerBuild: true,
    env: { PUBLIC_URL: 'http://pier.example.com' },
  });
  t.match(await csrfCookieOf(server), /^pier_csrf=[A-Za-z0-9_-]{43}; Path=\/ui; HttpOnly; SameSite=Strict$/);
});
