/**
 * A real pier server for a test: its own database, migrations, the whole app. Requests go
 * through fastify's inject (the full request path, without a socket) unless `listen` is set.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { RecentLog } from '../../api/server-log/recent-lines.js';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Test } from 'tap';
import { readProcessOptions, type ProcessOptions } from '../../api/process-options.js';
import { startServer, type RunningServer, type ServerSettings } from '../../api/server.js';
import { openDatabase } from '../../storage/db.js';
import type { SharedClock } from '../../protocol/clock.js';
import { createMigratedDatabase, type TestDatabase } from './database.js';

export interface TestServer extends RunningServer {
  db: TestDatabase;
  dataDir: string;
  /** A request with a JSON body (or none) and the token given, answered as parsed JSON. */
  call(method: string, url: string, options?: CallOptions): Promise<Answer>;
  /** A fresh API token of a new local service account. */
  newToken(account?: string): Promise<string>;
  /** The token made when the server started, of service account `tester`. */
  token: string;
}

export interface CallOptions {
  body?: unknown;
  /** Raw payload, sent as is with the given content type. */
  payload?: string | Buffer;
  token?: string | null;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers are asserted field by field
  raw: string;
  /** The body as bytes (payloads are not always text). */
  bytes: Buffer;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  developerBuild?: boolean;
  /** A clock the test moves (protocol/clock.ts): the API and every actor thread read it. */
  clock?: SharedClock;
  listen?: boolean;
  /** Share the database of another test server (a second process of the cluster). */
  db?: TestDatabase;
  runtime?: ServerSettings['runtime'];
  /** Where the server logs; by default it logs nothing. */
  logger?: Logger;
  /** Where `logger` keeps its recent lines for GET /server-log (made with its keep hook). */
  recentLog?: RecentLog;
  /** Storage settings saved before the server starts (an S3 bucket: test/helpers/s3.ts). */
  storage?: Record<string, string>;
}

/** Points a fresh migrated database's payload storage at the test's own directory. */
async function keepPayloadsIn(
  url: string,
  directory: string,
  storage: Record<string, string> = {},
): Promise<void> {
  const orm = await openDatabase(url, { poolMax: 1 });
  try {
    await orm.em.getConnection().execute('update settings set storage_local_directory = ?', [directory]);
    for (const [column, value] of Object.entries(storage)) {
      if (!/^storage_[a-z0-9_]+$/.test(column)) throw new Error(`Not a storage setting: ${column}`);
      await orm.em.getConnection().execute(`update settings set ${column} = ?`, [value]);
    }
  } finally {
    await orm.close();
  }
}

export async function startTestServer(t: Test, settings: TestServerOptions = {}): Promise<TestServer> {
  const db = settings.db ?? (await createMigratedDatabase());
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pier-test-'));
  const options: ProcessOptions = {
    ...readProcessOptions({
      DATABASE_URL: db.url,
      PIER_DATA_DIR: dataDir,
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
      // One key for every test process, as a cluster shares one key (the key file is tested on its own).
      PIER_SECRET_KEY: 'pier-test-secret-key',
      // Tests that scrape turn it on (METRICS_PORT=0); others would contend for one port.
      METRICS_PORT: 'off',
      ...settings.env,
    }),
  };
  if (!settings.db) await keepPayloadsIn(db.url, path.join(dataDir, 'payloads'), settings.storage);
  const server = await startServer({
    options,
    developerBuild: settings.developerBuild ?? false,
    logger: settings.logger ?? false,
    ...(settings.recentLog ? { recentLog: settings.recentLog } : {}),
    listen: settings.listen ?? false,
    ...(settings.clock ? { clock: settings.clock } : {}),
    ...(settings.runtime ? { runtime: settings.runtime } : {}),
  });
  t.teardown(async () => {
    await server.close();
    if (!settings.db) await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const call = async (method: string, url: string, o: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    const token = o.token === undefined ? test.token : o.token;
    if (token !== null && headers.authorization === undefined) headers.authorization = `Bearer ${token}`;
    let payload: string | Buffer | undefined = o.payload;
    if (o.body !== undefined) payload = JSON.stringify(o.body);
    if (payload !== undefined || ['POST', 'PUT', 'DELETE'].includes(method)) {
      headers['content-type'] ??= 'application/json';
    }
    const r = await server.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
    let body: unknown;
    try {
      body = r.body === '' ? undefined : JSON.parse(r.body);
    } catch {
      body = undefined;
    }
    return {
      status: r.statusCode,
      headers: r.headers as Answer['headers'],
      body,
      raw: r.body,
      bytes: r.rawPayload,
    };
  };

  let accounts = 0;
  const newToken = async (account = `tester-${++accounts}`): Promise<string> => {
    const a = await call('POST', '/api/v1/service-accounts', { body: { name: account }, token: bootstrap });
    if (a.status !== 201 && a.status !== 409) throw new Error(`creating account failed: ${a.raw}`);
    const made = await call('POST', '/api/v1/api-tokens', {
      body: { service_account: account, label: 'test' },
      token: bootstrap,
    });
    if (made.status !== 201) throw new Error(`creating token failed: ${made.raw}`);
    return made.body.data.token as string;
  };

  // The first account and token are made through the services, as `pier` on the CLI would.
  const { createServiceAccount } = await import('../../api/resources/service-accounts/service.js');
  const { createApiToken } = await import('../../api/resources/api-tokens/service.js');
  const system = { kind: 'developer' as const, actor: 'system' };
  const accountName = settings.db ? `tester-${process.hrtime.bigint()}` : 'tester';
  await createServiceAccount(server.ctx, system, {
    name: accountName,
    description: '',
    kind: 'local',
    enabled: true,
    oidc_issuer: '',
    oidc_subject: '',
  });
  const bootstrap = (
    await createApiToken(server.ctx, system, {
      service_account: accountName,
      label: 'tests',
      expires_in_days: 90,
    })
  ).token;
  const test: TestServer = Object.assign(server, { db, dataDir, call, newToken, token: bootstrap });
  return test;
}
