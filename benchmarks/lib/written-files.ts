/**
 * The documents a file writer has written, counted as an operator would see them: the files
 * below its directory (recursively, since a path pattern may make subdirectories), hidden
 * entries skipped (the writer's `.pier-tmp` temporaries). Counted by polling, so a count is at
 * most one interval (plus one listing) late.
 */
import { watch, type Dirent, type FSWatcher } from 'node:fs';
import { lstat, mkdir, readdir } from 'node:fs/promises';
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

/**
 * Starts counting the files below `directory`, those already there left out. Counted from the
 * kernel's notices (inotify, through fs.watch on the directory and each subdirectory), one per new
 * name: listing the directory every 100 ms, as this did before 2026-11-25, cost the load
 * generator 15–25 ms of CPU per listing once 30,000 files were there (the side by side writes
 * about that many), a quarter of a core taken from whichever server was being measured. Before
 * it reports a stall, a full listing checks that no notice was missed.
 */
export async function watchWrittenFiles(directory: string, intervalMs = 100): Promise<WrittenFiles> {
  const known = new Set<string>();
  const watchers = new Map<string, FSWatcher>();
  let changedAt = performance.now();
  let stopped = false;

  const watchDirectory = async (dir: string, counting: boolean): Promise<void> => {
    if (stopped || watchers.has(dir)) return;
    const watcher = watch(dir, (_event, name) => {
      if (name && !name.startsWith('.')) void look(path.join(dir, name.toString()), true);
    });
    watcher.on('error', () => watchers.delete(dir));
    watchers.set(dir, watcher);
    // Names made before the watcher was there.
    let entries: Dirent[] = [];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await watchDirectory(full, counting);
      else if (entry.isFile() && !known.has(full)) {
        known.add(full);
        if (counting) changedAt = performance.now();
      }
    }
  };
  const look = async (full: string, counting: boolean): Promise<void> => {
    if (known.has(full) || watchers.has(full)) return;
    const found = await lstat(full).catch(() => null);
    if (!found) return;
    if (found.isDirectory()) await watchDirectory(full, counting);
    else if (found.isFile() && !known.has(full)) {
      known.add(full);
      changedAt = performance.now();
    }
  };

  await mkdir(directory, { recursive: true });
  await watchDirectory(directory, false);
  const baseline = known.size;
  const written = () => known.size - baseline;
  return {
    written,
    lastChangeAt: () => changedAt,
    async waitFor(count, stallMs) {
      while (written() < count) {
        if (performance.now() - changedAt > stallMs) {
          const listed = (await countFiles(directory)) - baseline;
          if (listed >= count) return;
          throw new Error(
            `${count - listed} of ${count} documents not written: none written for ${stallMs / 1000} s`,
          );
        }
        await new Promise((r) => setTimeout(r, intervalMs));
      }
    },
    async stop() {
      stopped = true;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
