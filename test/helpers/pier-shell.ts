/** The `pier` command run as an operator's shell would: a database and data directory of the test file's own. */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { createTestDatabase, type TestDatabase } from './database.js';

const root = path.resolve(import.meta.dirname, '../..');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface PierShell {
  db: TestDatabase;
  dataDir: string;
  /** Runs `pier ARGS…` in the data directory with DATABASE_URL and PIER_DATA_DIR set; `env` adds or overrides. */
  pier(args: string[], env?: Record<string, string | undefined>): Promise<Run>;
}

export async function pierShell(t: Test): Promise<PierShell> {
  const db = await createTestDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pier-cli-shell-'));
  t.teardown(async () => {
    await db.drop();
    await rm(dataDir, { recursive: true, force: true });
  });
  const pier = (args: string[], env: Record<string, string | undefined> = {}) =>
    new Promise<Run>((resolve) => {
      execFile(
        process.execPath,
        [path.join(root, 'bin/pier.js'), ...args],
        {
          cwd: dataDir,
          env: {
            ...process.env,
            DATABASE_URL: db.url,
            PIER_DATA_DIR: dataDir,
            PIER_SECRET_KEY: 'pier-test-secret-key',
            ...env,
          },
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  return { db, dataDir, pier };
}
