/**
 * Java sources under test/fixtures/ compiled with Debian's javac once for a run of the suite
 * rather than once per test file: javac takes about 3 s of CPU (18 s on a loaded machine) for the
 * BouncyCastle S/MIME peer that two files run (test/helpers/bc-as2-peer.ts). The classes are kept under .test-output/java-classes/
 * (git-ignored), in a folder named by a hash of the sources, the classpath and javac's version,
 * so a changed source or jar compiles again.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { checkoutRoot } from './checkout.js';

const cache = path.join(checkoutRoot, '.test-output/java-classes');

/** The folder holding the compiled classes of `files` (javac with `jars` on the classpath, `options` before). */
export function compiledJava(files: string[], jars: string[], options: string[] = []): string {
  const hash = createHash('sha256');
  hash.update(execFileSync('javac', ['-version'], { stdio: 'pipe' }));
  for (const part of [...options, ...jars]) hash.update(`${part}\0`);
  for (const jar of jars) hash.update(`${statSync(jar).size}:${statSync(jar).mtimeMs}\0`);
  for (const file of [...files].sort()) hash.update(path.basename(file)).update(readFileSync(file));
  const classes = path.join(cache, hash.digest('hex').slice(0, 16));
  if (existsSync(classes)) return classes;
  mkdirSync(cache, { recursive: true });
  // Compiled aside and renamed into place, so a file running at the same time never sees half the classes.
  const aside = mkdtempSync(path.join(cache, 'compiling-'));
  try {
    execFileSync('javac', [...options, '-cp', jars.join(':'), '-d', aside, ...files], { stdio: 'pipe' });
    renameSync(aside, classes);
  } catch (error) {
    // Another file put the same classes in place first: theirs are used.
    if (!existsSync(classes)) throw error;
  } finally {
    rmSync(aside, { recursive: true, force: true });
  }
  return classes;
}
