/**
 * `--storage s3` for the benchmarks: an s3rver (the only S3 server installable here, see
 * docs/decisions/checksums-when-required-with-an-endpoint.md) on 127.0.0.1 in the benchmark's own process, a bucket, the settings that
 * select it and the credentials a pier process takes from its environment.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error -- s3rver ships no types
import S3rver from 's3rver';
import type { Orm } from '../../storage/db.js';

export interface BenchS3 {
  /** Saves the bucket as the storage of a migrated database. */
  select(orm: Orm): Promise<void>;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startBenchS3(): Promise<BenchS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'pier-bench-s3-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: 'bench' }],
  });
  const { port } = (await server.run()) as { port: number };
  return {
    async select(orm) {
      await orm.em
        .getConnection()
        .execute(
          "update settings set storage_backend = 's3', storage_s3_bucket = 'bench', storage_s3_region = 'us-east-1', storage_s3_endpoint = ?",
          [`http://127.0.0.1:${port}`],
        );
    },
    env: { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'bench' },
    async close() {
      await (server.close() as Promise<void>);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
