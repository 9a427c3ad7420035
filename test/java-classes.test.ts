// Covers the suite's compile-once cache of the Java tools tests run against (test/helpers/java-classes.ts): the same sources give the same compiled classes without compiling again; a changed source compiles into classes of its own, which run the changed code; a source that does not compile fails with javac's error.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { compiledJava } from './helpers/java-classes.js';

// .ci/run installs Java; without it (a developer's machine) this file says so instead.
if (spawnSync('javac', ['-version'], { stdio: 'ignore' }).status !== 0) {
  if (process.env.CI) t.fail('javac is not installed');
  else void t.skip('javac is not installed here', () => {});
} else {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-java-classes-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const source = path.join(dir, 'Hello.java');
  const hello = (word: string) =>
    `public class Hello { public static void main(String[] a) { System.out.println("${word}"); } }\n`;
  const run = (classes: string) =>
    execFileSync('java', ['-cp', classes, 'Hello'], { stdio: 'pipe' }).toString().trim();

  t.test('the same sources: the classes compiled before, not compiled again', async (t) => {
    await writeFile(source, hello(`first ${process.pid}`));
    const first = compiledJava([source], []);
    t.equal(run(first), `first ${process.pid}`);
    const compiledAt = (await stat(path.join(first, 'Hello.class'))).mtimeMs;
    const again = compiledJava([source], []);
    t.equal(again, first, 'the same folder');
    t.equal((await stat(path.join(again, 'Hello.class'))).mtimeMs, compiledAt, 'not written again');
  });

  t.test('a changed source compiles again, into classes of its own', async (t) => {
    await writeFile(source, hello(`first ${process.pid}`));
    const before = compiledJava([source], []);
    await writeFile(source, hello(`changed ${process.pid}`));
    const after = compiledJava([source], []);
    t.not(after, before);
    t.equal(run(after), `changed ${process.pid}`, 'the changed code runs');
    t.equal(run(before), `first ${process.pid}`, 'the earlier classes are left as they were');
  });

  t.test("a source that does not compile fails with javac's error", async (t) => {
    await writeFile(source, 'public class Hello { broken }\n');
    t.throws(() => compiledJava([source], []), /Hello\.java/);
  });
}
