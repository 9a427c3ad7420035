/**
 * The pier that `pier bench self` measures: `pier serve` of this install in a process of its
 * own (so the load generator does not share its threads), on a scratch database next to the
 * install's and a scratch data directory, with an API token to set it up over its REST API.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiToken } from '../../api/resources/api-tokens/service.js';
import { createServiceAccount } from '../../api/resources/service-accounts/service.js';
import { createApiContext } from '../../api/create-context.js';
import { readProcessOptions } from '../../api/process-options.js';
import { SecretBox } from '../../runtime/index.js';
import { migrate, openDatabase, type Orm } from '../../storage/db.js';
import { freePort } from './free-port.js';

export interface SelfServer {
  url: string;
  pid: number;
  token: string;
  stop(): Promise<void>;
}

/**
 * The script that runs `pier` for the server measured: the one this command was started with
 * (bin/pier.js, the build; bin/pier-sources.js, the sources), else in a checkout the sources'
 * and in a release the build's.
 */
export function pierScript(): string {
  const started = process.argv[1] ?? '';
  if (/bin[\\/]pier(-sources)?\.js$/.test(started)) return started;
  // The nearest folder above this module with a bin/: the checkout (or a compiled copy of it) for
  // cli/bench/, the installed package for a release's dist/cli/bench/.
  for (let dir = import.meta.dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    for (const script of ['pier-sources.js', 'pier.js'])
      if (existsSync(path.join(dir, 'bin', script))) return path.join(dir, 'bin', script);
  }
  throw new Error('Cannot find the pier command (bin/pier.js) to start a server with');
}

/** Who makes the benchmark's service account, as the audit log names them. */
export interface BenchAccountMaker {
  actor: string;
  description: string;
}

/**
 * Migrations, `prepare` (a benchmark's own rows), then a service account `bench` with a token of a
 * day, made as the CLI makes them. The repository's benchmarks (benchmarks/lib/api-token.ts) make
 * theirs here too.
 */
export async function benchAccountToken(
  databaseUrl: string,
  maker: BenchAccountMaker,
  prepare?: (orm: Orm) => Promise<void>,
): Promise<string> {
  const orm = await openDatabase(databaseUrl);
  try {
    await migrate(orm);
    await prepare?.(orm);
    const ctx = createApiContext({
      orm,
      options: readProcessOptions({ DATABASE_URL: databaseUrl }),
      // Nothing is sealed here; the server brings its own key.
      secrets: SecretBox.fromText('pier bench'),
      storageInUse: {
        storage_backend: 'local',
        storage_local_directory: './payloads',
        storage_s3_bucket: '',
        storage_s3_region: '',
        storage_s3_endpoint: '',
      },
      developerBuild: false,
    });
    const system = { kind: 'developer' as const, actor: maker.actor };
    await createServiceAccount(ctx, system, {
      name: 'bench',
      description: maker.description,
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
    return token;
  } finally {
    await orm.close();
  }
}

export async function startSelfServer(databaseUrl: string): Promise<SelfServer> {
  const token = await benchAccountToken(databaseUrl, {
    actor: 'cli:pier-bench-self',
    description: 'pier bench self',
  });
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pier-bench-self-'));
  const child = spawn(process.execPath, [pierScript(), 'serve'], {
    cwd: dataDir,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PIER_DATA_DIR: dataDir,
      HTTP_PORT: String(port),
      HTTP_HOST: '127.0.0.1',
      METRICS_PORT: 'off',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  // /ready, not /health: a process still starting answers every API call 503.
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`pier serve exited with ${child.exitCode} before it was ready: ${stderr.trim()}`);
    }
    if (i > 1200) {
      await stop();
      throw new Error('pier serve was not ready within 2 minutes');
    }
    try {
      if ((await fetch(`${url}/ready`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid!, token, stop };
}
