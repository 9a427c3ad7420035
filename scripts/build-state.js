// Whether the compiled build (dist/) is older than the sources it is made from. Plain
// JavaScript, so bin/pier.js can ask without tsx; scripts/build.ts uses it too.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The folders `npm run build` compiles (tsconfig.build.json's include). */
export const sourceFolders = [
  'api',
  'actors',
  'cli',
  'edi',
  'flow',
  'limits',
  'pki',
  'protocol',
  'runtime',
  'storage',
];
/** Written by scripts/build.ts after a build succeeded: its time is the build's. */
export const stampFile = path.join('dist', '.built');
/** Test fixtures the build copies too: the AS2 self-test's captures (scripts/build.ts). */
const copiedFixtures = ['test/fixtures/as2-line-endings', 'test/fixtures/pyas2lib-pss'];

/** Newest modification time (ms) of the files a build reads under `dir`, tests left out. */
function newestUnder(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'fixtures') newest = Math.max(newest, newestUnder(full));
    } else if (!entry.name.endsWith('.test.ts')) {
      newest = Math.max(newest, statSync(full).mtimeMs);
    }
  }
  return newest;
}

/**
 * Why `root`'s build must be made again ('missing', 'stale'), or null when it is up to date.
 * A checkout's files are a few hundred: stating them takes milliseconds.
 */
export function buildNeeded(root) {
  let built;
  try {
    built = statSync(path.join(root, stampFile)).mtimeMs;
  } catch {
    return 'missing';
  }
  const inputs = [
    ...sourceFolders.map((f) => newestUnder(path.join(root, f))),
    ...copiedFixtures.map((f) => newestUnder(path.join(root, f))),
    statSync(path.join(root, 'tsconfig.json')).mtimeMs,
    statSync(path.join(root, 'tsconfig.build.json')).mtimeMs,
  ];
  return Math.max(...inputs) > built ? 'stale' : null;
}
