// Covers test/counts-reporter.mjs: its closing "N passed, N failed" line counts what tap itself
// counts, checked against a real tap run of a file with passing, failing, empty and skipped tests.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '..');
// Inside the checkout, so the sample resolves 'tap'; a dot folder, so test/run.ts never picks it up.
const dir = await mkdtemp(path.join(root, 'test', '.counts-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

const sample = `import t from 'tap';
t.test('passes twice', async (t) => { t.ok(true); t.ok(true); });
t.test('runs no assertion', async () => {});
t.test('fails one of two', async (t) => { t.ok(true); t.comment('where it stands'); t.ok(false, 'this one fails'); });
t.test('nested', async (t) => {
  t.test('inner fails', async (t) => { t.equal(1, 2); });
  t.test('inner empty', async () => {});
});
t.test('skipped', { skip: 'not today' }, async () => {});
t.ok(true, 'top level');
`;

t.test('the closing line agrees with tap’s own totals', async (t) => {
  const file = path.join(dir, 'sample.test.mjs');
  await writeFile(file, sample);
  const out = await new Promise<string>((resolve) =>
    execFile(
      process.execPath,
      [
        path.join(root, 'node_modules/tap/dist/esm/run.mjs'),
        '--reporter',
        path.join(root, 'test/counts-reporter.mjs'),
        '--disable-coverage',
        '--allow-incomplete-coverage',
        file,
      ],
      // A clean environment: the TAP_* variables of this run would make tap act as a child.
      { cwd: dir, env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^TAP/.test(k))) },
      (_error, stdout) => resolve(stdout),
    ),
  );
  const totals = /^# \{ total: (\d+), pass: (\d+), fail: (\d+)(?:, skip: (\d+))? \}$/m.exec(out);
  t.ok(totals, 'tap printed its totals');
  const line = /^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/m.exec(out);
  t.ok(line, 'the reporter printed its line');
  t.equal(line![1], totals![2], 'passed = tap’s pass');
  t.equal(line![2], totals![3], 'failed = tap’s fail');
  t.equal(line![3] ?? '0', totals![4] ?? '0', 'skipped = tap’s skip');
  t.equal(`${line![1]} passed, ${line![2]} failed, ${line![3]} skipped`, '6 passed, 2 failed, 1 skipped');
  t.match(
    out,
    /\nnot ok: .*fails one of two > this one fails\n {2}# where it stands\nnot ok: .*nested > inner fails > should be equal\n\d+ passed/,
    'each failed assertion is named just above the line, with the comments printed just before it',
  );
});
