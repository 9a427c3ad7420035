/**
 * The tree test/run.ts runs the tests from: the whole checkout compiled by tsc into
 * .test-output/build/, beside links to every other file, so each test file, each `pier serve`
 * a test starts and each actor thread runs plain JavaScript instead of loading every module
 * through tsx's loader (that loader cost a third of the suite's CPU: an API test file 21 s of
 * CPU under tsx, 14 s compiled; a `pier serve` start 5-6 s, 3.3 s).
 *
 * The compile is also the suite's type check (`tsc -p .` with output), incremental between runs.
 * The links make the tree read as the checkout: a test finds its fixtures, the docs and the
 * sources it reads beside its own module, and a .ts file a test runs through tsx is the
 * checkout's own file. Two are made here: `bin/pier-sources.js` is written to start the compiled
 * CLI, and the AS2 self-test's captures folder, where a compiled build looks for them
 * (actors/as2/self-test/run.ts), is a link to test/fixtures/.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
export const buildRoot = path.join(root, '.test-output/build');

/** Folders tsconfig.json compiles: walked file by file, since their compiled modules sit among the links. */
const compiledFolders = (
  JSON.parse(readFileSync(path.join(root, 'tsconfig.json'), 'utf8')) as { include: string[] }
).include;
/** Neither linked nor walked: what the tree itself is in, and what tests and builds make at run time. */
const notLinked = new Set([
  '.git',
  '.test-output',
  '.test-pg',
  '.tap',
  'dist',
  'data',
  'payloads',
  'coverage',
]);

/** Compiles and links the tree; false (tsc's errors printed) when the sources do not compile. */
export function buildTestTree(): boolean {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(
    process.execPath,
    [
      tsc,
      ...['-p', path.join(root, 'tsconfig.json'), '--noEmit', 'false', '--outDir', buildRoot],
      ...['--rootDir', root, '--incremental', '--tsBuildInfoFile', path.join(buildRoot, '.tsbuildinfo')],
    ],
    { cwd: root, stdio: 'inherit' },
  );
  if (compiled.status !== 0) return false;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (notLinked.has(entry.name)) continue;
    if (entry.isDirectory() && compiledFolders.includes(entry.name)) {
      prune(entry.name);
      linkFiles(entry.name);
    } else relink(entry.name);
  }
  writeGenerated();
  return true;
}

/**
 * Removes what an earlier run left for a source since moved or deleted: its link, its compiled
 * module, its folder. Left, a test reading the tree (test/self-contained.test.ts) met a link to
 * nothing, and an import of the old path still found the old module.
 */
function prune(folder: string): void {
  const inTree = path.join(buildRoot, folder);
  let entries;
  try {
    entries = readdirSync(inTree, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const relative = path.join(folder, entry.name);
    const source = path.join(root, relative);
    const compiledFrom =
      /\.m?js$/.test(entry.name) && entry.isFile() ? source.replace(/\.(m?)js$/, '.$1ts') : source;
    if (entry.isDirectory()) {
      if (existsSync(source)) prune(relative);
      else rmSync(path.join(buildRoot, relative), { recursive: true, force: true });
    } else if (!existsSync(compiledFrom)) rmSync(path.join(buildRoot, relative), { force: true });
  }
}

/** Links every file under `folder` (relative to the root) that tsc did not write. */
function linkFiles(folder: string): void {
  mkdirSync(path.join(buildRoot, folder), { recursive: true });
  for (const entry of readdirSync(path.join(root, folder), { withFileTypes: true })) {
    const relative = path.join(folder, entry.name);
    if (entry.name === 'node_modules') relink(relative);
    else if (entry.isDirectory()) linkFiles(relative);
    else if (!isCompiledOutput(relative)) relink(relative);
  }
}

/** A file of the tree that tsc wrote (a module compiled from a .ts beside its source's path). */
function isCompiledOutput(relative: string): boolean {
  try {
    // lstat: a link an earlier run made is not a file here.
    return lstatSync(path.join(buildRoot, relative)).isFile();
  } catch {
    return false;
  }
}

/** Points the tree's `relative` at `target` (the checkout's own), replacing what an earlier run left. */
function relink(relative: string, target = path.join(root, relative)): void {
  const inTree = path.join(buildRoot, relative);
  rmSync(inTree, { force: true });
  symlinkSync(target, inTree);
}

function writeGenerated(): void {
  const launcher = path.join(buildRoot, 'bin/pier-sources.js');
  rmSync(launcher, { force: true });
  writeFileSync(
    launcher,
    [
      '#!/usr/bin/env node',
      '// Written by test/build-tree.ts: the `pier` command from the tree the tests run, compiled.',
      "const { main } = await import('../cli/main.js');",
      'process.exit(await main(process.argv.slice(2)));',
      '',
    ].join('\n'),
  );
  // The self-test reads its captures beside its compiled module, under the names they have in test/fixtures/.
  relink('actors/as2/self-test/test-captures', path.join(root, 'test/fixtures'));
}
