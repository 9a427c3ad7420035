/**
 * Authenticated list throughput: 20 concurrent clients with an API token against
 * GET /api/v1/organizations?limit=50 with 1,000 organizations stored.
 * Target on the 2-core machine: at least 3,000 requests/s and p99 under 20 ms.
 * Options: --duration <seconds> (default 15), --connections <n> (default 20).
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { createApiContext } from '../src/core.js';
import { createApiToken } from '../src/api/resources/api-tokens/service.js';
import { createServiceAccount } from '../src/api/resources/service-accounts/service.js';
import { readProcessOptions } from '../src/config.js';
import { migrate, openDatabase } from '../src/storage/db.js';
import { SecretBox } from '../src/runtime/secrets/secret-box.js';
import { benchDatabase } from './lib/database.js';
import { startServerProcess } from './lib/server-process.js';

const { values } = parseArgs({ options: { duration: { type: 'string' }, connections: { type: 'string' } } });
const duration = Number(values.duration ?? 15);
const connections = Number(values.connections ?? 20);

const db = await benchDatabase();
const orm = await openDatabase(db.url);
await migrate(orm);
await orm.em
  .getConnection()
  .execute(
    `insert into organization (name, display_name) select 'org-' || g, 'Organization ' || g from generate_series(1, 1000) g`,
  );
const ctx = createApiContext({
  orm,
  options: readProcessOptions({ DATABASE_URL: db.url }),
  secrets: SecretBox.fromText('bench'),
  storageInUse: {
    storage_backend: 'local',
    storage_local_directory: './payloads',
    storage_s3_bucket: '',
    storage_s3_region: '',
    storage_s3_endpoint: '',
  },
  developerBuild: false,
});
const system = { kind: 'developer' as const, actor: 'system' };
await createServiceAccount(ctx, system, {
  name: 'bench',
  description: '',
  kind: 'local',
  enabled: true,
  oidc_issuer: '',
  oidc_subject: '',
});
const { token } = await createApiToken(ctx, system, {
  service_account: 'bench',
  label: 'bench',
  expires_in_days: 1,
});
ctx.apiTokens.close();
await orm.close();

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
