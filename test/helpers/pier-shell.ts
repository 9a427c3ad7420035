/**
 * The `pier` command for tests, with a database and data directory of the test file's own.
 * `pier` runs a command in the test's process (cli/main.ts with its own streams and
 * environment), which spares each call a Node start and a second of module loading;
 * `pierProcess` runs bin/pier-sources.js as an operator's shell would, for what only a process shows
 * (`serve`, the embedded PostgreSQL, the exit code a shell sees).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Test } from 'tap';
import { main } from '../../cli/main.js';
import { createTestDatabase, type TestDatabase } from './database.js';

const root = path.resolve(import.meta.dirname, '../..');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

type Env = Record<string, string | undefined>;

/** `pier ARGS…` in this process: stdout, stderr and the exit code main() returns. */
export async function runPier(args: string[], env: Env, stdin = ''): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
    stdin: Readable.from([stdin]),
    errIsTty: false,
  });
  return { code, stdout, stderr };
}

/** `node bin/pier-sources.js ARGS…` in `cwd`, as a shell runs it, with `stdin` on its standard input. */
export function runPierProcess(args: string[], env: Env, cwd: string, stdin = ''): Promise<Run> {
  return new Promise<Run>((resolve) => {
    const child = execFile(
      process.execPath,
      [path.join(root, 'bin/pier-sources.js'), ...args],
      { cwd, env: { ...process.env, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(stdin);
  });
}

export interface PierShell {
  db: TestDatabase;
  dataDir: string;
  /** Runs `pier ARGS…` in this process with DATABASE_URL and PIER_DATA_DIR set; `env` adds or overrides. */
  pier(args: string[], env?: Env): Promise<Run>;
  /** The same as a process of its own, in the data directory. */
  pierProcess(args: string[], env?: Env): Promise<Run>;
}

export async function pierShell(t: Test): Promise<PierShell> {
  const db = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pier-cli-shell-'));
  t.teardown(async () => {
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  });
  const envOf = (env: Env): Env => ({
    DATABASE_URL: db.url,
    PIER_DATA_DIR: dataDir,
    PIER_SECRET_KEY: 'pier-test-secret-key',
    ...env,
  });
  return {
    db,
    dataDir,
    pier: (args, env = {}) => runPier(args, { ...process.env, ...envOf(env) }),
    pierProcess: (args, env = {}) => runPierProcess(args, envOf(env), dataDir),
  };
}
