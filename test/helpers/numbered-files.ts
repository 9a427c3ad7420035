/**
 * The numbered files of the crash and drain tests: file i is `f<i>.dat`, 4 KiB that start with
 * its number, so a file written twice, cut short or swapped with another is seen.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const numberedContent = (i: number) => `${String(i).padStart(4, '0')}:`.padEnd(4096, 'x');

/** Writes files 0 to `files` - 1 into `dir`. */
export async function writeNumbered(dir: string, files: number): Promise<void> {
  for (let i = 0; i < files; i++) await writeFile(path.join(dir, `f${i}.dat`), numberedContent(i));
}

/** How many files `dir` holds (hidden ones left out), and the numbered ones whose content is not theirs. */
export async function readNumbered(
  dir: string,
  files: number,
): Promise<{ written: number; wrong: string[] }> {
  const written = (await readdir(dir)).filter((f) => !f.startsWith('.')).length;
  const wrong: string[] = [];
  for (let i = 0; i < files; i++) {
    const bytes = await readFile(path.join(dir, `f${i}.dat`), 'utf8');
    if (bytes !== numberedContent(i)) wrong.push(`f${i}.dat`);
  }
  return { written, wrong };
}
