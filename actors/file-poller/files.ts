/** The file system side of the poller: listing candidate files and moving a taken file away. */
import { constants } from 'node:fs';
import { copyFile, link, readdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Directories } from '../shared/directories.js';

/** Names writers use while a file is not complete (the rename protocol): never taken. */
function inProgressName(name: string): boolean {
  return name.startsWith('.') || /\.(tmp|part|partial|filepart|crdownload)$/i.test(name);
}

/** Relative paths (with /) of the files below `base`, hidden directories left out. */
export async function listFiles(base: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      // A directory removed while we walk is no longer there to take files from.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path.join(dir, entry.name), rel);
      else if (entry.isFile() && !inProgressName(entry.name)) out.push(rel);
    }
  };
  await walk(base, '');
  return out;
}

/** Links `from` to `target` without replacing anything; copies across file systems. */
async function linkOrCopy(from: string, target: string): Promise<void> {
  try {
    await link(from, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP') throw error;
    await copyFile(from, target, constants.COPYFILE_EXCL);
  }
}

/**
 * Moves `from` to `to` without replacing anything there: a taken name gets the suffix
 * given. Answers where the file went, or undefined when it was already gone (another
 * process sharing the directory took it).
 */
export async function moveAside(
  from: string,
  to: string,
  suffix: string,
  directories: Directories,
): Promise<string | undefined> {
  const dir = path.dirname(to);
  const ext = path.extname(to);
  const candidates = [to, `${to.slice(0, to.length - ext.length)}.${suffix}${ext}`];
  await directories.ensure(dir);
  for (const target of candidates) {
    try {
      await directories.within(dir, () => linkOrCopy(from, target));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code !== 'EEXIST') throw error;
      // Linked before a crash could remove the original: the move is already done.
      const [a, b] = await Promise.all([stat(from).catch(() => undefined), stat(target)]);
      if (!a) return undefined;
      if (a.ino !== b.ino || a.dev !== b.dev) continue;
    }
    await unlink(from).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    return target;
  }
  throw new Error(`Cannot move ${from}: ${candidates.join(' and ')} are taken`);
}
