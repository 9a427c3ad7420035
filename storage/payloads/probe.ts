/**
 * The storage test (docs/api/README.md POST /settings/storage/test) and the check at start (2.11):
 * store a probe blob, read it back, compare, delete it, and name the step that failed with
 * the store's own words. The whole probe is bounded (docs/api/conventions.md#limits: 10 s): a step still running at
 * the deadline is the failing one, whatever the endpoint does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, stat, statfs } from 'node:fs/promises';
import { LocalPayloadStore } from './local-store.js';
import { s3Problem } from './s3-problem.js';
import type { S3PayloadStore } from './s3-store.js';
import type { StoreSelection } from './selection.js';
import type { PayloadRef, PayloadStore } from './store.js';

export type ProbeStep = 'directory' | 'connect' | 'write' | 'read' | 'compare' | 'delete';

export type ProbeResult =
  { ok: true; elapsed_ms: number } | { ok: false; elapsed_ms: number; step: ProbeStep; problem: string };

export interface ProbeOptions {
  /** The whole probe ends by then, answered or not. */
  deadlineMs: number;
  /**
   * Fail the write step of a local store whose file system has less room than lowSpace says
   * (the storage test: a store about to fill is a store about to fail). Not at start: a
   * process with little room left still serves what it has.
   */
  checkFreeSpace?: boolean;
}

/**
 * A local store's file system is short of room below 1 GiB free, or below 5 % of its size when
 * that is less (a small file system is judged by its share): docs/decisions/free-space-in-the-storage-test.md.
 */
export const lowSpace = { bytes: 1024 ** 3, share: 0.05 } as const;

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

/** The write step's failure when the directory's file system has too little room left. */
async function checkFreeSpace(directory: string): Promise<void> {
  const fs = await statfs(directory);
  const free = fs.bavail * fs.bsize;
  const size = fs.blocks * fs.bsize;
  const needed = Math.min(lowSpace.bytes, size * lowSpace.share);
  if (free < needed) {
    throw new StepFailed(
      'write',
      `${directory} has ${mib(free)} free of ${mib(size)} (${free} bytes), below the ${mib(needed)} pier wants free`,
    );
  }
}

class StepFailed extends Error {
  constructor(
    readonly step: ProbeStep,
    readonly problem: string,
  ) {
    super(problem);
  }
}

const problemOf = (error: unknown): string => {
  const e = error as { problem?: unknown; code?: string; message?: string };
  if (typeof e?.problem === 'string') return e.problem; // StorageFailed: the service's words
  if (e?.code && e.message) return e.message; // a file system error names the path and the errno
  return s3Problem(error);
};

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The local directory must exist (the server made it at start) and be writable. */
async function checkDirectory(directory: string): Promise<void> {
  const found = await stat(directory).catch((error: NodeJS.ErrnoException) => {
    throw new StepFailed(
      'directory',
      `${directory}: ${error.code === 'ENOENT' ? 'no such directory' : error.message}`,
    );
  });
  if (!found.isDirectory()) throw new StepFailed('directory', `${directory} is not a directory`);
  await access(directory, constants.W_OK | constants.X_OK).catch(() => {
    throw new StepFailed('write', `${directory} is not writable by this process`);
  });
}

async function runSteps(
  store: PayloadStore,
  selection: StoreSelection,
  mark: (s: ProbeStep) => void,
  options: ProbeOptions,
) {
  const step = async <T>(name: ProbeStep, work: () => Promise<T>): Promise<T> => {
    mark(name);
    try {
      return await work();
    } catch (error) {
      if (error instanceof StepFailed) throw error;
      throw new StepFailed(name, problemOf(error));
    }
  };
  if (selection.backend === 'local') {
    mark('directory');
    await checkDirectory(selection.directory);
  } else {
    await step('connect', () => (store as S3PayloadStore).checkBucket());
  }
  const ref: PayloadRef = { messageId: randomUUID(), stage: 'received' };
  const blob = randomBytes(4096);
  if (selection.backend === 'local' && options.checkFreeSpace) {
    mark('write');
    await checkFreeSpace(selection.directory);
  }
  await step('write', () => store.putBytes(ref, blob));
  const back = await step('read', async () => readAll(await store.open(ref)));
  mark('compare');
  const same = back.equals(blob);
  await step('delete', () => store.removeMessage(ref.messageId));
  if (!same) {
    throw new StepFailed(
      'compare',
      `read back ${back.length} bytes that differ from the ${blob.length} written`,
    );
  }
}

/** Runs the probe against a freshly opened store with limits that fit the deadline. */
export async function probeStorage(selection: StoreSelection, options: ProbeOptions): Promise<ProbeResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const budget = options.deadlineMs;
  // The S3 store (and with it the AWS SDK) is loaded only for an S3 selection.
  const store: LocalPayloadStore | S3PayloadStore =
    selection.backend === 'local'
      ? new LocalPayloadStore(selection.directory)
      : new (await import('./s3-store.js')).S3PayloadStore(selection, {
          connectMs: Math.min(5_000, budget / 2),
          idleMs: budget,
          callMs: budget,
          attempts: 2,
        });
  let current: ProbeStep = selection.backend === 'local' ? 'directory' : 'connect';
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new StepFailed(current, `no answer within ${Math.round(budget / 1000)} s`)),
      budget,
    );
  });
  try {
    await Promise.race([runSteps(store, selection, (s) => (current = s), options), deadline]);
    return { ok: true, elapsed_ms: elapsed() };
  } catch (error) {
    const failed = error instanceof StepFailed ? error : new StepFailed(current, problemOf(error));
    return { ok: false, elapsed_ms: elapsed(), step: failed.step, problem: failed.problem };
  } finally {
    clearTimeout(timer);
    if (!(store instanceof LocalPayloadStore)) store.close();
  }
}
