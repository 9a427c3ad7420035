/**
 * `npm run screenshots`: refreshes the committed screenshots in docs/ui/ (the README links them)
 * by running the browser tests that take them with PIER_SCREENSHOTS_DIR=docs/ui. `npm test`
 * writes its screenshots to .test-output/screenshots/ instead, never over tracked files.
 * Needs what the browser tests need: /usr/bin/chromium and a PostgreSQL (test/run.ts).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const uiTests = path.join(root, 'test/ui');
/** Every browser test that writes a screenshot into the folder test/ui/chromium.ts names. */
const takers = readdirSync(uiTests)
  .filter((f) => f.endsWith('.test.ts') && readFileSync(path.join(uiTests, f), 'utf8').includes('shots'))
  .map((f) => path.join('test/ui', f));

const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/run.ts', ...takers], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PIER_SCREENSHOTS_DIR: path.join(root, 'docs/ui') },
});
process.exit(run.status ?? 1);
