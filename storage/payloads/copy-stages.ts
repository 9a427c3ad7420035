/**
 * Copying every stage the store holds to another store (`pier storage migrate`). Stages kept
 * inline in PostgreSQL stay where they are. Each copy is read back from the target and
 * compared (size and SHA-256) with what was read from the source before it is recorded in
 * `storage_copy`; recorded copies are skipped, so a run that stopped resumes. Only reads the
 * source, so servers keep serving from it meanwhile; stages they add are copied by a later run.
 */
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { Orm } from '../db.js';
import {
  PayloadMissing,
  storedStages,
  type PayloadRef,
  type PayloadStore,
  type StoredStage,
} from './store.js';

export interface CopyProgress {
  /** Stages to copy in this run (not yet recorded for the target). */
  total: number;
  /** Recorded for the target before this run began. */
  skipped: number;
  copied: number;
  bytes: number;
  failures: { ref: PayloadRef; problem: string }[];
}

export interface CopyOptions {
  orm: Orm;
  source: PayloadStore;
  target: PayloadStore;
  /** Copies at once. */
  concurrency?: number;
  onProgress?: (progress: CopyProgress) => void;
}

/** The name a target is recorded under: the store's selection, which holds nothing secret. */
const targetName = (store: PayloadStore): string => JSON.stringify(store.selection);

/** Hashes and counts a stream's bytes on the way through. */
function hasher(): Transform & { digest: () => { sha256: string; bytes: number } } {
  const hash = createHash('sha256');
  let bytes = 0;
  const t = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return Object.assign(t, { digest: () => ({ sha256: hash.digest('hex'), bytes }) });
}

async function digestOf(stream: Readable): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Copies one stage and checks the copy; answers what was stored. */
async function copyOne(source: PayloadStore, target: PayloadStore, ref: PayloadRef) {
  const h = hasher();
  const read = await source.open(ref);
  read.on('error', (error) => h.destroy(error));
  try {
    await target.put(ref, read.pipe(h));
  } catch (error) {
    // A copy from a run that stopped before recording it: kept if it is the same bytes.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    read.destroy();
    const wanted = await digestOf(await source.open(ref));
    const there = await digestOf(await target.open(ref));
    if (wanted.sha256 !== there.sha256) throw new Error('the target holds different bytes under this stage');
    return wanted;
  }
  const wanted = h.digest();
  const there = await digestOf(await target.open(ref));
  if (there.bytes !== wanted.bytes || there.sha256 !== wanted.sha256) {
    throw new Error(
      `the copy reads back as ${there.bytes} bytes that differ from the ${wanted.bytes} copied`,
    );
  }
  return wanted;
}

export async function copyStages(options: CopyOptions): Promise<CopyProgress> {
  const { orm, source, target } = options;
  const conn = orm.em.getConnection();
  const name = targetName(target);
  const stages = storedStages.map((s) => `'${s}'`).join(', ');
  const [counted] = await conn.execute<{ n: number }[]>(
    `select count(*)::int as n from storage_copy where target = ?`,
    [name],
  );
  const todo = await conn.execute<{ message_id: string; stage: StoredStage }[]>(
    `select p.message_id::text as message_id, p.stage from payload p
      where p.content is null and p.stage in (${stages})
        and not exists (select 1 from storage_copy c
                         where c.target = ? and c.message_id = p.message_id and c.stage = p.stage)
      order by p.stored_at, p.message_id, p.stage`,
    [name],
  );
  const progress: CopyProgress = {
    total: todo.length,
    skipped: counted?.n ?? 0,
    copied: 0,
    bytes: 0,
    failures: [],
  };
  options.onProgress?.(progress);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < todo.length; i = next++) {
      const ref: PayloadRef = { messageId: todo[i]!.message_id, stage: todo[i]!.stage };
      try {
        const copied = await copyOne(source, target, ref);
        await conn.execute(
          `insert into storage_copy (target, message_id, stage, size_bytes, sha256, copied_at)
           values (?, ?, ?, ?, ?, now()) on conflict do nothing`,
          [name, ref.messageId, ref.stage, copied.bytes, copied.sha256],
        );
        progress.copied++;
        progress.bytes += copied.bytes;
      } catch (error) {
        const problem =
          error instanceof PayloadMissing ? 'not in the source store' : (error as Error).message;
        progress.failures.push({ ref, problem });
      }
      options.onProgress?.(progress);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return progress;
}
