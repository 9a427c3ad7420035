/**
 * `npm run build`: compiles the sources to dist/ with tsc (tsconfig.build.json) and copies the
 * files the server reads at run time beside the compiled modules (the web UI's assets, the EDIFACT
 * directory that annotations name segments from), and the AS2 self-test's captures that `pier doctor`
 * replays, from test/fixtures/ into dist/actors/as2/self-test/test-captures/.
 * `--if-needed` does nothing when dist/ is newer than every source (npm start uses it).
 *
 * tsc compiles incrementally; JavaScript whose source was removed is deleted afterwards, so a
 * build never runs a module that no longer exists in the sources.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { selfTestCaptureFiles } from '../actors/as2/self-test/cases.js';
import { buildNeeded, sourceFolders, stampFile } from './build-state.js';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
/** Files the server reads at run time, copied as they are (relative to the repository). */
const assets = [
  'api/ui/assets',
  'edi/json/directory/edifact-d96a.json.gz',
  // piscina's task file for the receive pool (CommonJS, not compiled: it says why).
  'actors/as2-receiver/open-worker-entry.cjs',
];
/**
 * The AS2 self-test's captures (run.ts: capturesDirectory): test fixtures in the sources, which a
 * release has no folder for. Only the files the self-test reads are copied, under a name that says
 * what they are: public test captures, two of them the private keys their projects publish.
 */
const selfTestCaptures = path.join(dist, 'actors/as2/self-test/test-captures');

const need = buildNeeded(root);
if (process.argv.includes('--if-needed') && need === null) process.exit(0);

const started = Date.now();
process.stderr.write(`Building pier into dist/ (${need ?? 'asked'})…\n`);
rmSync(path.join(root, stampFile), { force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
try {
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
} catch {
  process.stderr.write('The build failed: tsc reported the errors above.\n');
  process.exit(1);
}

/** Deletes compiled files under `dir` (in dist/) whose source is gone; returns how many. */
function prune(dir: string): number {
  let removed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const source = path.join(root, path.relative(dist, full));
    if (entry.isDirectory()) {
      if (!existsSync(source)) {
        rmSync(full, { recursive: true });
        removed++;
      } else removed += prune(full);
    } else if (entry.name.endsWith('.js') && !existsSync(source.replace(/\.js$/, '.ts'))) {
      rmSync(full);
      removed++;
    }
  }
  return removed;
}
for (const folder of sourceFolders) if (existsSync(path.join(dist, folder))) prune(path.join(dist, folder));

for (const asset of assets) {
  rmSync(path.join(dist, asset), { recursive: true, force: true });
  cpSync(path.join(root, asset), path.join(dist, asset), { recursive: true });
}
rmSync(selfTestCaptures, { recursive: true, force: true });
for (const file of selfTestCaptureFiles) {
  mkdirSync(path.dirname(path.join(selfTestCaptures, file)), { recursive: true });
  copyFileSync(path.join(root, 'test/fixtures', file), path.join(selfTestCaptures, file));
}
copyFileSync(
  path.join(root, 'actors/as2/self-test/test-captures-README.md'),
  path.join(selfTestCaptures, 'README.md'),
);
writeFileSync(path.join(root, stampFile), `${new Date().toISOString()}\n`);
process.stderr.write(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
