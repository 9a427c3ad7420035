/**
 * Where the file writer keeps a file while it is written: a hidden directory `.pier-tmp` at
 * the top of its directory, never beside the partner's files. A partner's pickup, and pier's
 * own poller, list the directories they read, and skip hidden entries; a half-written file
 * is never among them, even when a crash (kill -9) leaves one behind.
 *
 * Leftovers are removed when the writer starts (those not touched for `limits.temporaryStaleAfterMs`: another
 * process of a cluster may be writing its own) and when a delivery is claimed again (its own
 * earlier temporaries: the claim is ours now, so whoever wrote them has stopped).
 */
import { randomBytes } from 'node:crypto';
import { readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { limits } from '../../limits/limits.js';

export const temporaryDirectoryName = '.pier-tmp';

export function temporaryDirectory(directory: string): string {
  return path.join(directory, temporaryDirectoryName);
}

/** A new temporary path for a delivery: `<directory>/.pier-tmp/<delivery>-<random>.tmp`. */
export function temporaryPath(directory: string, deliveryId: number): string {
  return path.join(temporaryDirectory(directory), `${deliveryId}-${randomBytes(4).toString('hex')}.tmp`);
}

/**
 * Where a document handed to the writer by a source of node `node` waits for its acceptance to
 * commit (protocol/handoff-protocol.ts): `<directory>/.pier-tmp/h-<node>-<message id>.tmp`. Named
 * by the message, so that a writer starting after a crash finds which delivery each one was.
 */
export function handedTemporaryPath(directory: string, node: number, messageId: string): string {
  return path.join(temporaryDirectory(directory), `h-${node}-${messageId}.tmp`);
}

const handedName = /^h-(\d+)-([0-9a-f-]{36})\.tmp$/;

/** A handed temporary found in the directory: which node wrote it, for which message, when last. */
export interface HandedFile {
  file: string;
  node: number;
  messageId: string;
  mtimeMs: number;
}

/**
 * The handed temporaries in `directory`, whichever node wrote them: the writer asks the database
 * what became of each one that nobody here holds (handoff.ts, resolveLeftovers).
 */
export async function handedFiles(directory: string): Promise<HandedFile[]> {
  const found: HandedFile[] = [];
  for (const name of await names(directory)) {
    const match = handedName.exec(name);
    if (!match) continue;
    const file = path.join(temporaryDirectory(directory), name);
    const info = await stat(file).catch(() => undefined);
    if (!info) continue;
    found.push({ file, node: Number(match[1]), messageId: match[2]!, mtimeMs: info.mtimeMs });
  }
  return found;
}

async function names(directory: string): Promise<string[]> {
  try {
    return await readdir(temporaryDirectory(directory));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Removes leftovers not modified for `limits.temporaryStaleAfterMs`; answers how many went. */
export async function removeStaleTemporaries(directory: string, now = Date.now()): Promise<number> {
  let removed = 0;
  for (const name of await names(directory)) {
    // A handed file is resolved by its delivery's state instead (handedFiles).
    if (handedName.test(name)) continue;
    const file = path.join(temporaryDirectory(directory), name);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile() || now - info.mtimeMs < limits.temporaryStaleAfterMs) continue;
    if (
      await unlink(file).then(
        () => true,
        () => false,
      )
    )
      removed++;
  }
  return removed;
}

/**
 * Removes what earlier tries at a delivery claimed again left, in one look at the directory: the
 * temporaries of its earlier claims, and the handed file of its message whichever node wrote it
 * (a hand-off whose file never got its name: the claim writes its own). Answers how many went.
 */
export async function removeEarlierAttempts(
  directory: string,
  deliveryId: number,
  messageId: string,
): Promise<number> {
  const prefix = `${deliveryId}-`;
  let removed = 0;
  for (const name of await names(directory)) {
    const earlierClaim = name.startsWith(prefix) && name.endsWith('.tmp');
    if (!earlierClaim && handedName.exec(name)?.[2] !== messageId) continue;
    const gone = await unlink(path.join(temporaryDirectory(directory), name)).then(
      () => true,
      () => false,
    );
    if (gone) removed++;
  }
  return removed;
}
