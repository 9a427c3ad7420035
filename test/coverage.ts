/**
 * `npm run test:coverage`: the suite (or the files given) with V8's coverage on, then the line
 * coverage of each product folder. Every process a test starts (pier servers, actor threads, CLI
 * runs) inherits NODE_V8_COVERAGE and writes its own record; c8 merges them. It measures the
 * compiled tree the tests run (test/build-tree.ts), so the figures count compiled lines, which
 * compare one run with another, not with a source-mapped report. Files no test loaded count as
 * not covered. Slower than `npm test` (V8 keeps exact counts): run it to compare before and after a
 * change to the suite, not on every commit.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildRoot } from './build-tree.js';
import { productFolders } from './code-folders.js';

const root = path.resolve(import.meta.dirname, '..');
const raw = path.join(root, '.test-output/coverage-raw');
const reports = path.join(root, '.test-output/coverage');
rmSync(raw, { recursive: true, force: true });
rmSync(reports, { recursive: true, force: true });
const tests = spawnSync(
  process.execPath,
  ['--import', 'tsx', path.join(root, 'test/run.ts'), ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_V8_COVERAGE: raw } },
);

const c8 = path.join(root, 'node_modules/c8/bin/c8.js');
const report = spawnSync(
  process.execPath,
  [
    c8,
    'report',
    ...['--temp-directory', raw, '--reports-dir', reports, '--all', '--src', buildRoot],
    ...['--reporter', 'json-summary', '--reporter', 'html'],
    ...productFolders.flatMap((folder) => ['--include', `${folder}/**/*.js`]),
    ...['--exclude', '**/*.test.js', '--exclude', '**/fixtures/**'],
  ],
  { cwd: buildRoot, stdio: 'inherit' },
);
if (report.status !== 0) process.exit(report.status ?? 1);

interface Counts {
  total: number;
  covered: number;
}
const summary = JSON.parse(readFileSync(path.join(reports, 'coverage-summary.json'), 'utf8')) as Record<
  string,
  { lines: Counts }
>;
const byFolder = new Map(productFolders.map((folder) => [folder, { total: 0, covered: 0 }]));
for (const [file, { lines }] of Object.entries(summary)) {
  if (file === 'total') continue;
  const folder = path.relative(buildRoot, file).split(path.sep)[0] ?? '';
  const counts = byFolder.get(folder);
  if (!counts) continue;
  counts.total += lines.total;
  counts.covered += lines.covered;
}
const percent = ({ total, covered }: Counts) => (total === 0 ? 100 : (100 * covered) / total).toFixed(2);
const all = [...byFolder.values()].reduce(
  (sum, counts) => ({ total: sum.total + counts.total, covered: sum.covered + counts.covered }),
  { total: 0, covered: 0 },
);
const lines = [
  '# line coverage of the compiled product folders (covered / lines)',
  ...[...byFolder].map(
    ([folder, counts]) =>
      `${folder.padEnd(9)} ${percent(counts).padStart(6)} %  ${counts.covered} / ${counts.total}`,
  ),
  `${'all'.padEnd(9)} ${percent(all).padStart(6)} %  ${all.covered} / ${all.total}`,
];
writeFileSync(path.join(reports, 'folders.txt'), `${lines.join('\n')}\n`);
process.stdout.write(`${lines.join('\n')}\n(per file: ${path.relative(root, reports)}/index.html)\n`);
process.exit(tests.status ?? 1);
