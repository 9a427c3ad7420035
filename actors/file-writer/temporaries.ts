/**
 * Where the file writer keeps a file while it is written: a hidden directory `.pier-tmp` at
 * the top of its directory, never beside the partner's files. A partner's pickup, and pier's
 * own poller, list the directories they read, and skip hidden entries; a half-written file
 * is never among them, even when a crash (kill -9) leaves one behind.
 *
 * Leftovers are removed when the writer starts (those not touched for `staleAfterMs`: another
 * process of a cluster may be writing its own) and when a delivery is claimed again (its own
 * earlier temporaries: the claim is ours now, so whoever wrote them has stopped).
 */
import { randomBytes } from 'node:crypto';
import { readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';

export const temporaryDirectoryName = '.pier-tmp';

/** A temporary older than this at start is a crash's leftover, not another process's write in hand. */
export const staleAfterMs = 15 * 60 * 1000;

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

/**
 * The handed temporaries a crash or a stop left: those of `node` (this process's node: no source
 * of it hands anything before the writer is running), and other nodes' once they are stale.
 */
export async function leftHanded(
  directory: string,
  node: number,
  now = Date.now(),
): Promise<{ file: string; messageId: string }[]> {
  const left: { file: string; messageId: string }[] = [];
  for (const name of await names(directory)) {
    const match = handedName.exec(name);
    if (!match) continue;
    const file = path.join(temporaryDirectory(directory), name);
    if (Number(match[1]) !== node) {
      const info = await stat(file).catch(() => undefined);
      if (!info || now - info.mtimeMs < staleAfterMs) continue;
    }
    left.push({ file, messageId: match[2]! });
  }
  return left;
}

async function names(directory: string): Promise<string[]> {
  try {
    return await readdir(temporaryDirectory(directory));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Removes leftovers not modified for `staleAfterMs`; answers how many went. */
export async function removeStaleTemporaries(directory: string, now = Date.now()): Promise<number> {
  let removed = 0;
  for (const name of await names(directory)) {
    // A handed file is resolved by its delivery's state instead (leftHanded).
    if (handedName.test(name)) continue;
    const file = path.join(temporaryDirectory(directory), name);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile() || now - info.mtimeMs < staleAfterMs) continue;
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

/** Removes the temporaries an earlier claim of this delivery left; answers how many went. */
export async function removeDeliveryTemporaries(directory: string, deliveryId: number): Promise<number> {
  const prefix = `${deliveryId}-`;
  let removed = 0;
  for (const name of await names(directory)) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const gone = await unlink(path.join(temporaryDirectory(directory), name)).then(
      () => true,
      () => false,
    );
    if (gone) removed++;
  }
  return removed;
}
