/**
 * Streams one stage into S3 holding at most `inFlight` part buffers of `bytes` each, the part
 * being filled counted among them: up to one part it is a single PUT, above it a multipart
 * upload. lib-storage's Upload was not used for this: it gathers each part as a list of chunks
 * and then concatenates them (a second copy of the part), keeps the next part's first bytes as a
 * view into that copy, and holds a part more than its queue size while it gathers, which made a
 * 64 MiB upload grow the process by several parts more than it sends (docs/decisions/part-size-8-mib-two-part-buffers-pier-s-own-multipart-upload.md).
 * Here each part is copied once into a buffer that is reused once its part is stored.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { isStorageFailure } from './storage-failure.js';
import { limits } from '../../limits/limits.js';

export interface PartLimits {
  /** Size of a part, and the largest object sent in one PUT (S3 takes parts from 5 MiB). */
  bytes: number;
  /** Part buffers an upload holds at once, the one being filled included (at least 1). */
  inFlight: number;
}

/** Runs one S3 call within the store's limits; failures come back as the store's errors. */
export type BoundedCall = <T>(operation: string, send: (signal: AbortSignal) => Promise<T>) => Promise<T>;

interface Target {
  client: S3Client;
  bucket: string;
  key: string;
  parts: PartLimits;
  call: BoundedCall;
}

/** Reads chunks into `into` from `offset`; answers how far it is filled and the chunk's rest. */
function copyInto(into: Buffer, offset: number, chunk: Buffer): { filled: number; rest: Buffer | undefined } {
  const taken = Math.min(into.length - offset, chunk.length);
  chunk.copy(into, offset, 0, taken);
  return { filled: offset + taken, rest: taken < chunk.length ? chunk.subarray(taken) : undefined };
}

/**
 * Tries `abort` again after each delay until it succeeds, without keeping the process alive; an
 * upload still open after the last attempt (or when the process stops first) is removed by the
 * bucket's lifecycle rule for incomplete multipart uploads (docs/decisions/aborted-uploads.md).
 */
function abortLater(abort: () => Promise<unknown>, attempt = 0): void {
  const seconds = limits.s3AbortRetrySeconds[attempt];
  if (seconds === undefined) return;
  setTimeout(() => {
    abort().catch(() => abortLater(abort, attempt + 1));
  }, seconds * 1000).unref();
}

/**
 * Stores everything `source` yields under the target's key; answers the bytes stored. On any
 * failure (of the source or of a call) a multipart upload is aborted before the error is
 * thrown, so nothing is left behind when the store can still be reached.
 */
export async function uploadStream(target: Target, source: AsyncIterable<Buffer>): Promise<number> {
  const { client, bucket, key, parts, call } = target;
  const chunks = source[Symbol.asyncIterator]();
  // Gathered as references first: most stages are smaller than a part, and allocating a whole
  // part for each of them would cost a part per upload in flight.
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes <= parts.bytes) {
    const next = await chunks.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    headBytes += next.value.length;
  }
  if (ended) {
    const body = head.length === 1 ? head[0]! : Buffer.concat(head, headBytes);
    await call(`upload of ${key}`, (abortSignal) =>
      client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: body,
          ContentLength: body.length,
          ContentType: 'application/octet-stream',
        }),
        { abortSignal },
      ),
    );
    return headBytes;
  }

  const { UploadId } = await call(`upload of ${key}`, (abortSignal) =>
    client.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: 'application/octet-stream' }),
      { abortSignal },
    ),
  );
  const free: Buffer[] = [];
  let allocated = 0;
  const sending = new Set<Promise<void>>();
  const done: CompletedPart[] = [];
  let failure: unknown;

  const sendPart = (PartNumber: number, buffer: Buffer, length: number) => {
    const sent = call(`upload of part ${PartNumber} of ${key}`, (abortSignal) =>
      client.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId,
          PartNumber,
          Body: buffer.subarray(0, length),
          ContentLength: length,
        }),
        { abortSignal },
      ),
    ).then(
      (answer) => {
        if (!answer.ETag) {
          failure ??= new Error(`part ${PartNumber} was stored without an ETag`);
          return;
        }
        done.push({ PartNumber, ETag: answer.ETag });
        free.push(buffer);
      },
      (error: unknown) => {
        failure ??= error;
      },
    );
    const tracked = sent.finally(() => sending.delete(tracked));
    sending.add(tracked);
  };

  /** A part buffer: a free one, a new one while fewer than inFlight exist, else the next freed. */
  const nextBuffer = async (): Promise<Buffer | undefined> => {
    for (;;) {
      if (failure !== undefined) return undefined;
      const reused = free.pop();
      if (reused) return reused;
      if (allocated < parts.inFlight) {
        allocated++;
        return Buffer.allocUnsafeSlow(parts.bytes);
      }
      await Promise.race(sending);
    }
  };

  let total = 0;
  try {
    // The gathered chunks move into the first part; the array that held them is emptied.
    let pending: Buffer[] = head.splice(0);
    let partNumber = 0;
    for (;;) {
      const buffer = await nextBuffer();
      if (!buffer) break;
      let filled = 0;
      const carried: Buffer[] = [];
      for (const chunk of pending) {
        if (filled === buffer.length) carried.push(chunk);
        else {
          const copied = copyInto(buffer, filled, chunk);
          filled = copied.filled;
          if (copied.rest) carried.push(copied.rest);
        }
      }
      pending = carried;
      while (filled < buffer.length && !ended) {
        const next = await chunks.next();
        if (next.done) ended = true;
        else {
          const copied = copyInto(buffer, filled, next.value);
          filled = copied.filled;
          if (copied.rest) pending.push(copied.rest);
        }
      }
      total += filled;
      if (filled > 0) sendPart(++partNumber, buffer, filled);
      if (ended && pending.length === 0) break;
    }
    while (sending.size > 0) await Promise.race(sending);
    if (failure !== undefined) throw failure;
    done.sort((a, b) => a.PartNumber! - b.PartNumber!);
    await call(`upload of ${key}`, (abortSignal) =>
      client.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: done },
        }),
        { abortSignal },
      ),
    );
    return total;
  } catch (error) {
    // Parts still being sent would otherwise land after the abort and be kept by the store.
    while (sending.size > 0) await Promise.race(sending);
    const abort = () =>
      call(`abort of the upload of ${key}`, (abortSignal) =>
        client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId }), { abortSignal }),
      );
    // The first failure is the one to report. A store that failed a call may not take the abort
    // either (and a hung one would hold the answer for another call's limit): then the abort is
    // tried in the background, so an outage that ends leaves no parts behind.
    if (isStorageFailure(error)) abortLater(abort);
    else await abort().catch(() => abortLater(abort));
    throw error;
  }
}
