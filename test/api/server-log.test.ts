// Covers GET /server-log: the server's recent lines as its logger wrote them, newest first; the
// level filter (that level and above) and the component filter (an instance's lines by its type,
// a component's by its name, requests as http); secrets censored at any depth; only an
// administrator reads it (a viewer and an operator are refused 403); an unknown level or
// parameter is 400 naming it; the buffer keeps only its last lines.
import pino from 'pino';
import t from 'tap';
import { loggerOptions } from '../../api/logger.js';
import { RecentLog } from '../../api/server-log/recent-lines.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const recentLog = new RecentLog();
const logger = pino(loggerOptions({ LOG_LEVEL: 'debug' }, recentLog.keep), { write: () => {} });
const server = await startTestServer(t, { logger, recentLog });

async function ok(s: TestServer, method: string, url: string, body?: unknown) {
  const answer = await s.call(method, url, body === undefined ? {} : { body });
  if (answer.status >= 300) throw new Error(`${method} ${url}: ${answer.raw}`);
  return answer.body.data;
}

logger.child({ component: 'dispatcher' }).warn({ message_id: 'm-1' }, 'delivery retrying');
logger
  .child({ component: 'supervisor' })
  .child({ instance: 'file-poller:outbox' })
  .error(
    {
      err: {
        message: 'ENOENT: no such file or directory, scandir /nowhere',
        config: { password: 'Hunter2-Nested' },
      },
    },
    'instance failed',
  );
logger.info({ password: 'Hunter2-Top' }, 'top-level secret');

t.test('lines newest first, by level and component, secrets censored', async (t) => {
  const all = await ok(server, 'GET', '/api/v1/server-log?level=debug');
  const messages = all.lines.map((l: { msg: string }) => l.msg);
  t.ok(messages.indexOf('top-level secret') < messages.indexOf('delivery retrying'), 'newest first');
  t.ok(
    all.components.includes('file-poller') && all.components.includes('dispatcher'),
    all.components.join(),
  );
  t.notMatch(JSON.stringify(all), /Hunter2/, 'no secret, at the top or nested');

  const warnings = await ok(server, 'GET', '/api/v1/server-log?level=warn');
  t.same(
    warnings.lines.map((l: { level: string; msg: string }) => [l.level, l.msg]),
    [
      ['error', 'instance failed'],
      ['warn', 'delivery retrying'],
    ],
  );
  const poller = await ok(server, 'GET', '/api/v1/server-log?component=file-poller');
  t.equal(poller.lines.length, 1);
  t.match(poller.lines[0], {
    component: 'file-poller',
    level: 'error',
    fields: { instance: 'file-poller:outbox', err: { config: { password: '[redacted]' } } },
  });
  t.match(poller.lines[0].time, /^\d{4}-\d\d-\d\dT/);

  // The requests just made are lines too, under http.
  const http = await ok(server, 'GET', '/api/v1/server-log?component=http&limit=1');
  t.equal(http.lines.length, 1);
});

t.test('refusals', async (t) => {
  const tokenWithRole = async (name: string, role: string): Promise<string> => {
    await ok(server, 'POST', '/api/v1/service-accounts', { name, role });
    return (await ok(server, 'POST', '/api/v1/api-tokens', { service_account: name, label: 'x' })).token;
  };
  for (const role of ['viewer', 'operator']) {
    const answer = await server.call('GET', '/api/v1/server-log', {
      token: await tokenWithRole(`l-${role}`, role),
    });
    t.equal(answer.status, 403, role);
    t.equal(answer.body.error.code, 'INSUFFICIENT_ROLE');
  }
  const level = await server.call('GET', '/api/v1/server-log?level=loud');
  t.equal(level.status, 400);
  t.match(level.body.error.details, { level: /Must be one of: trace, debug, info, warn, error, fatal/ });
  const unknown = await server.call('GET', '/api/v1/server-log?grep=x');
  t.equal(unknown.status, 400);
  t.ok('grep' in unknown.body.error.details);
});

t.test('the buffer keeps its last lines', async (t) => {
  const small = new RecentLog(3);
  const log = pino(loggerOptions({}, small.keep), { write: () => {} });
  for (let i = 1; i <= 5; i++) log.info(`line ${i}`);
  const read = small.read({ level: 'info', limit: 10 });
  t.same(
    read.lines.map((l) => l.msg),
    ['line 5', 'line 4', 'line 3'],
  );
  t.equal(read.kept, 3);
});
