// Covers the actors' mkdir -p walk: it makes missing parents, and it settles with an error where Node 20's recursive mkdir never settles (under /proc, directly or through a symbolic link).
import { mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { makeDirectory } from './make-directory.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-mkdir-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

/** The error the walk ends with, or `late`: a walk that never settles cannot hang the file. */
async function outcome(target: string): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(() => resolve('late'), 3000)));
  const walked = makeDirectory(target).then(
    () => 'made',
    (error: NodeJS.ErrnoException) => error.code ?? error.message,
  );
  return Promise.race([walked, late]).finally(() => clearTimeout(timer));
}

t.test('makes the directory and its missing parents; an existing one is fine', async (t) => {
  const deep = path.join(dir, 'a', 'b', 'c');
  t.equal(await outcome(deep), 'made');
  t.ok((await stat(deep)).isDirectory());
  t.equal(await outcome(deep), 'made', 'again: already there');
});

t.test('a file in the way is ENOTDIR', async (t) => {
  await writeFile(path.join(dir, 'file'), 'x');
  t.equal(await outcome(path.join(dir, 'file')), 'ENOTDIR');
  t.equal(await outcome(path.join(dir, 'file', 'below')), 'ENOTDIR');
});

t.test('under /proc it settles with ENOENT', async (t) => {
  t.equal(await outcome('/proc/pier-relbad'), 'ENOENT');
  t.equal(await outcome('/proc/pier-relbad/deeper'), 'ENOENT');
  await symlink('/proc', path.join(dir, 'to-proc'));
  t.equal(await outcome(path.join(dir, 'to-proc', 'relbad')), 'ENOENT', 'reached through a link too');
});
