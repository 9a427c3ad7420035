// Covers Strict-Transport-Security: sent (one year, no subdomains) on web UI, API, health and error answers when PUBLIC_URL is https, and never when it is http.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

const paths = ['/ui', '/api/v1/organizations', '/health', '/api/v1/nothing-here'];

const hstsOf = async (server: TestServer, url: string) =>
  (await server.app.inject({ method: 'GET', url })).headers['strict-transport-security'];

t.test('an https PUBLIC_URL: every answer carries HSTS', async (t) => {
  const server = await startTestServer(t, {
    developerBuild: true,
    env: { PUBLIC_URL: 'https://pier.example.com' },
  });
  for (const url of paths) t.equal(await hstsOf(server, url), 'max-age=31536000', url);
});

t.test('an http PUBLIC_URL: none', async (t) => {
  const server = await startTestServer(t, {
    developerBuild: true,
    env: { PUBLIC_URL: 'http://pier.example.com' },
  });
  for (const url of paths) t.equal(await hstsOf(server, url), undefined, url);
});
