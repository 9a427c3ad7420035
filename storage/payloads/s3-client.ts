/**
 * The S3 client a payload store talks through, and how its failures read. Credentials come
 * only from the SDK's standard chain (environment, shared config and credentials files, web
 * identity, container and instance metadata): they are never settings, and the texts made
 * here carry the service's own words, which never include them.
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { S3Selection } from './selection.js';

export { isStorageFailure, StorageFailed } from './storage-failure.js';

// pier ships with a pinned SDK version; the SDK's notice that its later versions need Node 22 is
// not the operator's to act on, and it would land in the middle of pier's own output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Limits on every call, so a slow or dead endpoint fails a call instead of hanging it. */
export interface S3Limits {
  /** Connecting a socket. */
  connectMs: number;
  /** A socket without traffic (also while a body streams). */
  idleMs: number;
  /** One call, until its answer's headers (a streamed body is bounded by idleMs instead). */
  callMs: number;
  /** Attempts per call, retries included (the SDK's standard retry strategy with backoff). */
  attempts: number;
}

export const defaultS3Limits: S3Limits = { connectMs: 5_000, idleMs: 30_000, callMs: 60_000, attempts: 3 };

export function makeS3Client(selection: S3Selection, limits: S3Limits): S3Client {
  return new S3Client({
    region: selection.region,
    maxAttempts: limits.attempts,
    requestHandler: {
      connectionTimeout: limits.connectMs,
      socketTimeout: limits.idleMs,
      requestTimeout: limits.callMs,
      throwOnRequestTimeout: true,
      httpAgent: { keepAlive: true, maxSockets: 64 },
      httpsAgent: { keepAlive: true, maxSockets: 64 },
    },
    ...(selection.endpoint
      ? {
          endpoint: selection.endpoint,
          forcePathStyle: true,
          // Other S3 implementations (s3rver, some MinIO and Ceph versions) store the
          // aws-chunked framing of a streamed body with a trailing checksum as the object's
          // bytes (see docs/decisions/checksums-when-required-with-an-endpoint.md): checksums only where the operation requires one.
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }
      : {}),
  });
}

export { s3Problem } from './s3-problem.js';
