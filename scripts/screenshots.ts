/**
 * `npm run screenshots`: refreshes the committed screenshots in docs/ui/ (the README links them)
 * by running the browser tests that take them with PIER_SCREENSHOTS_DIR=docs/ui. `npm test`
 * writes its screenshots to .test-output/screenshots/ instead, never over tracked files.
 * Needs what the browser tests need: /usr/bin/chromium and a PostgreSQL (test/run.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const uiTests = path.join(root, 'test/ui');
/** Every browser test that writes a screenshot into the folder test/ui/chromium.ts names. */
const takers = readdirSync(uiTests)
  .filter((f) => f.endsWith('.test.ts') && readFileSync(path.join(uiTests, f), 'utf8').includes('shots'))
  .map((f) => path.join('test/ui', f));

/**
 * The partner onboarding wizard's steps, as docs/ui/README.md shows them (taken by
 * test/ui/task-onboard-partner.test.ts): each must come out of this run, not linger from an
 * older one.
 */
const wizardSteps = [
  'wizard-1-organization',
  'wizard-2-partner',
  'wizard-3-profile',
  'wizard-4-instances',
  'wizard-4-instances-390',
  'wizard-5-routes',
  'wizard-6-check',
];

const shots = path.join(root, 'docs/ui');
const started = Date.now();
const run = spawnSync(process.execPath, ['--import', 'tsx', 'test/run.ts', ...takers], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PIER_SCREENSHOTS_DIR: shots },
});
const stale = wizardSteps.filter((name) => {
  const file = path.join(shots, `${name}.png`);
  return !existsSync(file) || statSync(file).mtimeMs < started;
});
if (stale.length > 0)
  console.error(`Not taken by this run: ${stale.map((n) => `docs/ui/${n}.png`).join(', ')}`);
process.exit(run.status === 0 && stale.length > 0 ? 1 : (run.status ?? 1));
