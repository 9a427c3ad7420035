/**
 * The S3 store: stage `s` of message `m` is the object `messages/<m>/<s>` (docs/api/settings.md). Both
 * ways stream: uploads go through s3-upload.ts, one PUT up to a part and multipart above,
 * holding at most `limits.s3PartsInFlight` part buffers; an upload that fails (or is stopped by
 * `maxBytes`) aborts its multipart upload, so it leaves neither an object nor parts. Every
 * call is bounded by the limits of s3-client.ts and retried by the SDK.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { defaultS3Limits, makeS3Client, s3Problem, StorageFailed, type S3Limits } from './s3-client.js';
import type { S3Selection } from './selection.js';
import { uploadStream, type PartLimits } from './s3-upload.js';
import {
  checkRef,
  PayloadMissing,
  PayloadTooLarge,
  storedStages,
  type PayloadRef,
  type PayloadStore,
  type PutOptions,
} from './store.js';
import { limits } from '../../limits/limits.js';

const keyOf = (ref: PayloadRef): string => {
  checkRef(ref);
  return `messages/${ref.messageId}/${ref.stage}`;
};

const isMissing = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

export class S3PayloadStore implements PayloadStore {
  readonly client: S3Client;
  readonly limits: S3Limits;

  constructor(
    readonly target: S3Selection,
    callLimits: Partial<S3Limits> = {},
    /** Multipart part size and parts in flight; the defaults are measured (benchmarks/s3-part-size.ts). */
    readonly parts: PartLimits = { bytes: limits.s3PartBytes, inFlight: limits.s3PartsInFlight },
  ) {
    this.limits = { ...defaultS3Limits, ...callLimits };
    this.client = makeS3Client(target, this.limits);
  }

  get selection(): S3Selection {
    return this.target;
  }

  /** A signal that stops a call after `callMs`, and a way to stop the clock once answered. */
  #deadline(): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.limits.callMs);
    return { signal: controller.signal, done: () => clearTimeout(timer) };
  }

  async #call<T>(operation: string, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const deadline = this.#deadline();
    try {
      return await send(deadline.signal);
    } catch (error) {
      throw this.#failed(operation, error);
    } finally {
      deadline.done();
    }
  }

  #failed(operation: string, error: unknown): Error {
    if (error instanceof StorageFailed || error instanceof PayloadTooLarge) return error;
    const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
    return new StorageFailed(
      `${operation} in bucket ${this.target.bucket}`,
      s3Problem(error, this.limits),
      status,
    );
  }

  /** The bucket answers (HeadBucket): what startup and the storage test call `connect`. */
  async checkBucket(): Promise<void> {
    try {
      await this.#call('check of the bucket', (abortSignal) =>
        this.client.send(new HeadBucketCommand({ Bucket: this.target.bucket }), { abortSignal }),
      );
    } catch (error) {
      // HeadBucket answers without a body, so the SDK has no words of the service to give.
      const status = (error as StorageFailed).status;
      if (status === 404)
        throw new StorageFailed(
          'check of the bucket',
          `NoSuchBucket: bucket ${this.target.bucket} does not exist`,
        );
      if (status === 403)
        throw new StorageFailed(
          'check of the bucket',
          `AccessDenied: the credentials may not use bucket ${this.target.bucket}`,
        );
      throw error;
    }
  }

  async put(ref: PayloadRef, source: Readable, options: PutOptions = {}): Promise<number> {
    const Key = keyOf(ref);
    let tooLarge: PayloadTooLarge | undefined;
    async function* counted(): AsyncGenerator<Buffer> {
      let bytes = 0;
      for await (const chunk of source as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (options.maxBytes !== undefined && bytes > options.maxBytes) {
          tooLarge = new PayloadTooLarge(options.maxBytes);
          throw tooLarge;
        }
        yield chunk;
      }
    }
    try {
      return await uploadStream(
        {
          client: this.client,
          bucket: this.target.bucket,
          key: Key,
          parts: this.parts,
          call: (operation, send) => this.#call(operation, send),
        },
        counted(),
      );
    } catch (error) {
      source.destroy();
      if (tooLarge) throw tooLarge;
      throw this.#failed(`upload of ${Key}`, error);
    }
  }

  async putBytes(ref: PayloadRef, bytes: Uint8Array): Promise<number> {
    const Key = keyOf(ref);
    await this.#call(`upload of ${Key}`, (abortSignal) =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.target.bucket,
          Key,
          Body: bytes,
          ContentType: 'application/octet-stream',
        }),
        { abortSignal },
      ),
    );
    return bytes.length;
  }

  async open(ref: PayloadRef): Promise<Readable> {
    const Key = keyOf(ref);
    const deadline = this.#deadline();
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.target.bucket, Key }), {
        abortSignal: deadline.signal,
      });
      // From here the body is bounded by the socket's idle limit, not by the call's clock
      // (a large stage may take longer than one call to stream).
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error)) throw new PayloadMissing(ref);
      throw this.#failed(`download of ${Key}`, error);
    } finally {
      deadline.done();
    }
  }

  async remove(ref: PayloadRef): Promise<void> {
    const Key = keyOf(ref);
    await this.#call(`delete of ${Key}`, (abortSignal) =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.target.bucket, Key }), { abortSignal }),
    );
  }

  async removeMessage(messageId: string): Promise<void> {
    // Deleting a key that does not exist succeeds, so every stage a message may have is named.
    await Promise.all(storedStages.map((stage) => this.remove({ messageId, stage })));
  }

  /** Closes the client's sockets (a store opened for one task, like the storage test). */
  close(): void {
    this.client.destroy();
  }
}
