/**
 * The documents a file writer has written, counted as an operator would see them: the files
 * below its directory (recursively, since a path pattern may make subdirectories), hidden
 * entries skipped (the writer's `.pier-tmp` temporaries). Counted by polling, so a count is at
 * most one interval (plus one listing) late.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';

export async function countFiles(directory: string): Promise<number> {
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let count = 0;
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) count += await countFiles(path.join(directory, entry.name));
    else if (entry.isFile()) count++;
  }
  return count;
}

export interface WrittenFiles {
  /** Files written since the watch began, at the last poll. */
  written(): number;
  /** performance.now() of the poll that first saw the current count. */
  lastChangeAt(): number;
  /**
   * Resolves when `count` files are written; rejects, naming how many are missing, when none
   * has been written for `stallMs`.
   */
  waitFor(count: number, stallMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** Starts counting the files below `directory`, those already there left out. */
export async function watchWrittenFiles(directory: string, intervalMs = 100): Promise<WrittenFiles> {
  const baseline = await countFiles(directory);
  let written = 0;
  let changedAt = performance.now();
  let stopped = false;
  const polling = (async () => {
    while (!stopped) {
      await new Promise((r) => setTimeout(r, intervalMs));
      const count = (await countFiles(directory)) - baseline;
      if (count !== written) {
        written = count;
        changedAt = performance.now();
      }
    }
  })();
  return {
    written: () => written,
    lastChangeAt: () => changedAt,
    async waitFor(count, stallMs) {
      while (written < count) {
        if (performance.now() - changedAt > stallMs)
          throw new Error(
            `${count - written} of ${count} documents not written: none written for ${stallMs / 1000} s`,
          );
        await new Promise((r) => setTimeout(r, intervalMs));
      }
    },
    async stop() {
      stopped = true;
      await polling;
    },
  };
}
