/**
 * A real S3 server for a test: s3rver 3.7.1 on 127.0.0.1 with its own directory and bucket,
 * stopped at the end. s3rver lacks AbortMultipartUpload (it answers 405), so a small
 * middleware adds it the way S3 behaves: the upload and its parts are gone. The test
 * credentials go into the environment, the SDK's standard source.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import net, { type AddressInfo, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error -- s3rver ships no types; it is used here only
import S3rver from 's3rver';
import type { Test } from 'tap';

/** The access key id s3rver accepts; it does not verify the secret (stack-probe.md). */
export const s3AccessKeyId = 'S3RVER';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  region: string;
  /** The settings that select this bucket. */
  settings: {
    storage_backend: 's3';
    storage_s3_bucket: string;
    storage_s3_region: string;
    storage_s3_endpoint: string;
  };
  client: S3Client;
  /** Keys under a prefix, sorted. */
  keys(prefix?: string): Promise<string[]>;
  /** Objects in the bucket, counted on s3rver's disk (its listing fails on thousands of keys). */
  countObjects(): Promise<number>;
  /** Multipart uploads started and neither completed nor aborted. */
  openUploads(): Promise<number>;
  /** Stops the server, keeping its objects: connections to the endpoint are refused. */
  stop(): Promise<void>;
  /** Starts the stopped server again on the same port, with the objects it had. */
  restart(): Promise<void>;
  /** Stops the server and removes its objects. */
  close(): Promise<void>;
}

/** Puts S3 credentials into the environment (the secret given, or a test one). */
export function useS3Credentials(secret = 'pier-test-s3-secret'): void {
  process.env.AWS_ACCESS_KEY_ID = s3AccessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = secret;
}

type KoaContext = { method: string; query: Record<string, string>; path: string; status: number };

export async function startS3(t: Test, options: { bucket?: string } = {}): Promise<TestS3> {
  useS3Credentials(process.env.AWS_SECRET_ACCESS_KEY);
  const bucket = options.bucket ?? 'pier-payloads';
  const directory = await mkdtemp(path.join(os.tmpdir(), 'pier-s3-'));
  const uploadsDir = path.join(directory, bucket, '._S3rver_uploads');
  const serve = async (port: number): Promise<{ server: { close(): Promise<void> }; port: number }> => {
    const server = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory,
      configureBuckets: [{ name: bucket }],
    });
    // AbortMultipartUpload: DELETE /<bucket>/<key>?uploadId=<id>.
    (server.middleware as unknown[]).unshift(async (ctx: KoaContext, next: () => Promise<void>) => {
      if (ctx.method === 'DELETE' && ctx.query.uploadId) {
        await rm(path.join(uploadsDir, path.basename(ctx.query.uploadId)), { recursive: true, force: true });
        ctx.status = 204;
        return;
      }
      await next();
    });
    return { server, port: ((await server.run()) as { port: number }).port };
  };
  let { server, port } = await serve(0);
  let running = true;
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  const client = new S3Client({
    endpoint,
    region,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  let closed = false;
  const stop = async () => {
    if (!running) return;
    running = false;
    await server.close();
  };
  const close = async () => {
    if (closed) return;
    closed = true;
    client.destroy();
    await stop();
    await rm(directory, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  t.teardown(close);
  return {
    endpoint,
    bucket,
    region,
    settings: {
      storage_backend: 's3',
      storage_s3_bucket: bucket,
      storage_s3_region: region,
      storage_s3_endpoint: endpoint,
    },
    client,
    async keys(prefix = '') {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
        );
        keys.push(...(page.Contents ?? []).map((c) => c.Key!));
        token = page.NextContinuationToken;
      } while (token);
      return keys.sort();
    },
    async countObjects() {
      const entries = await readdir(path.join(directory, bucket), { recursive: true });
      return entries.filter((e) => e.endsWith('._S3rver_object')).length;
    },
    async openUploads() {
      return (await readdir(uploadsDir).catch(() => [])).length;
    },
    stop,
    async restart() {
      if (running) return;
      ({ server, port } = await serve(port));
      running = true;
    },
    close,
  };
}

/** A TCP server that accepts connections and never answers: a hung endpoint. */
export async function startSilentEndpoint(t: Test): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** A loopback port nothing listens on: connections are refused. */
export async function refusedEndpoint(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
