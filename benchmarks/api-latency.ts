/**
 * Authenticated list throughput: 20 concurrent clients with an API token against
 * GET /api/v1/organizations?limit=50 with 1,000 organizations stored.
 * Target on the 2-core machine: at least 3,000 requests/s and p99 under 20 ms.
 * Options: --duration <seconds> (default 15), --connections <n> (default 20).
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { prepareWithToken } from './lib/api-token.js';
import { benchDatabase } from './lib/database.js';
import { startServerProcess } from './lib/server-process.js';

const { values } = parseArgs({ options: { duration: { type: 'string' }, connections: { type: 'string' } } });
const duration = Number(values.duration ?? 15);
const connections = Number(values.connections ?? 20);

const db = await benchDatabase();
const token = await prepareWithToken(db.url, async (orm) => {
  await orm.em
    .getConnection()
    .execute(
      `insert into organization (name, display_name) select 'org-' || g, 'Organization ' || g from generate_series(1, 1000) g`,
    );
});

const server = await startServerProcess(db.url);
try {
  const target = `${server.url}/api/v1/organizations?limit=50`;
  const headers = { authorization: `Bearer ${token}` };
  const check = await fetch(target, { headers });
  const body = (await check.json()) as { data: { organizations: unknown[]; total: number } };
  if (check.status !== 200 || body.data.organizations.length !== 50 || body.data.total !== 1000) {
    throw new Error(`unexpected answer ${check.status}`);
  }
  // Warm up the JIT, the pool and the token cache before measuring.
  await autocannon({ url: target, connections, duration: 3, headers });
  const result = await autocannon({ url: target, connections, duration, headers });
  const figures = {
    benchmark: 'api-latency',
    connections,
    duration_s: duration,
    requests_per_s: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors,
  };
  console.log(JSON.stringify(figures));
} finally {
  await server.stop();
  await db.drop();
}
