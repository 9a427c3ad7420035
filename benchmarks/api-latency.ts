/**
 * Authenticated list throughput: 20 concurrent clients against
 * GET /api/v1/organizations?limit=50 with 1,000 organizations stored, once with an API token
 * and once with an identity provider's JWT (a federated service account), one after the other.
 * Target on the 2-core machine: at least 3,000 requests/s and p99 under 20 ms.
 * Options: --duration <seconds> (default 15), --connections <n> (default 20),
 * --caller token|jwt|both (default both).
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { prepareWithToken } from './lib/api-token.js';
import { benchDatabase } from './lib/database.js';
import { registerJwtCaller, startJwtIssuer } from './lib/jwt-issuer.js';
import { startServerProcess } from './lib/server-process.js';

const { values } = parseArgs({
  options: { duration: { type: 'string' }, connections: { type: 'string' }, caller: { type: 'string' } },
});
const callers = values.caller === 'token' || values.caller === 'jwt' ? [values.caller] : ['token', 'jwt'];
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

const idp = await startJwtIssuer();
await registerJwtCaller(db.url, idp.issuer, 'bench-client');
const jwt = await idp.token('bench-client');

const server = await startServerProcess(db.url);
try {
  for (const caller of callers) {
    const target = `${server.url}/api/v1/organizations?limit=50`;
    const headers = { authorization: `Bearer ${caller === 'jwt' ? jwt : token}` };
    const check = await fetch(target, { headers });
    const body = (await check.json()) as { data: { organizations: unknown[]; total: number } };
    if (check.status !== 200 || body.data.organizations.length !== 50 || body.data.total !== 1000) {
      throw new Error(`unexpected answer ${check.status}`);
    }
    // Warm up the JIT, the pool and the token (or key) cache before measuring.
    await autocannon({ url: target, connections, duration: 3, headers });
    const result = await autocannon({ url: target, connections, duration, headers });
    const figures = {
      benchmark: 'api-latency',
      caller,
      ...(caller === 'jwt' ? { key_fetches: idp.keyFetches() } : {}),
      connections,
      duration_s: duration,
      requests_per_s: Math.round(result.requests.average),
      latency_p50_ms: result.latency.p50,
      latency_p99_ms: result.latency.p99,
      non_2xx: result.non2xx,
      errors: result.errors,
    };
    console.log(JSON.stringify(figures));
  }
} finally {
  await server.stop();
  await idp.close();
  await db.drop();
}
