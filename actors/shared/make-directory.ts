/**
 * `mkdir -p` that always settles. Node 20's `mkdir(dir, { recursive: true })` steps back on
 * ENOENT and forward on EEXIST with no end: under /proc (mkdir says ENOENT below a parent that
 * exists) it never settles, keeps a thread busy, and the thread cannot be terminated either.
 * This walk steps back only while parents are missing; once it has stepped forward, ENOENT is
 * final.
 */
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Makes the directory and its missing parents; fails like mkdir when one cannot be made. */
export async function makeDirectory(dir: string): Promise<void> {
  const missing: string[] = [];
  let current = path.resolve(dir);
  for (;;) {
    try {
      await mkdir(current);
      break;
    } catch (error) {
      if (codeOf(error) === 'EEXIST') break;
      const parent = path.dirname(current);
      if (codeOf(error) !== 'ENOENT' || parent === current) throw error;
      missing.push(current);
      current = parent;
    }
  }
  for (const child of missing.reverse()) {
    // Made meanwhile by someone else is as good; any other failure, ENOENT included, is final.
    await mkdir(child).catch((error: unknown) => {
      if (codeOf(error) !== 'EEXIST') throw error;
    });
  }
  const made = await stat(dir);
  if (!made.isDirectory()) {
    throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR' });
  }
}
