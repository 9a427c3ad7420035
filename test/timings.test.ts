// Covers the suite's per-file timing report (test/timings.ts, test/runner.ts): a file's CPU time
// is measured with the processes it started (a file that computes shows its CPU; one that waits
// shows wall time and next to no CPU); the report lists the files slowest first under a heading
// with the sums and the bounds; the log of files ended so far grows a line per file; and the
// next run reads each file's wall time back from the report.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { runFile } from './runner.js';
import { earlierTimings, timingLog, timingReport, writeTimingReport } from './timings.js';

const root = path.resolve(import.meta.dirname, '..');
// Inside the checkout, so the samples resolve 'tap'; a dot folder, so test/run.ts never picks it up.
const dir = await mkdtemp(path.join(root, 'test', '.timings-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

// The work is done by a child process, so the CPU counted is the file's and what it started.
const computes = `import { execFileSync } from 'node:child_process';
import t from 'tap';
t.test('computes', async (t) => {
  execFileSync(process.execPath, ['-e', 'while (process.cpuUsage().user < 300_000);']);
  t.ok(true, 'fine');
});
`;
const waits = `import t from 'tap';
t.test('waits', async (t) => {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  t.ok(true, 'fine');
});
`;

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^TAP/.test(k)));
const options = { cwd: dir, jobs: 1, timeoutSeconds: 60, env };

t.test('a file is timed: wall time, and CPU time with what it started', async (t) => {
  await writeFile(path.join(dir, 'computes.mjs'), computes);
  await writeFile(path.join(dir, 'waits.mjs'), waits);
  const busy = await runFile('computes.mjs', options);
  const idle = await runFile('waits.mjs', options);
  t.ok(busy.ok && idle.ok, 'both pass');
  t.ok(busy.cpuMs! >= 300, `the computing file used its child's CPU too (${busy.cpuMs} ms)`);
  t.ok(idle.ms >= 1500, `the waiting file took its wait (${idle.ms} ms)`);
  t.ok(idle.cpuMs! < idle.ms - 1000, `and little CPU (${idle.cpuMs} ms of ${idle.ms} ms)`);
});

const timings = [
  { file: 'test/b.test.ts', ok: true, ms: 2_000, cpuMs: 1_500 },
  { file: 'test/a.test.ts', ok: false, ms: 30_000, cpuMs: 12_000 },
  { file: 'test/c.test.ts', ok: true, ms: 500, cpuMs: undefined },
];

t.test('the report: slowest first, under the sums and the bounds', async (t) => {
  const report = timingReport(timings, { wallMs: 31_000, jobs: 3, cores: 2 });
  const lines = report.trimEnd().split('\n');
  t.equal(lines[0], '# 3 test files, 3 at a time on 2 cores: 31.0 s wall in all');
  t.match(lines[1], /summed over the files: 32\.5 s wall, 13\.5 s CPU/);
  t.match(lines[2], /the slowest file 30\.0 s; the CPU over 2 cores 6\.8 s/);
  t.same(
    lines.slice(4).map((line) => line.trim().split(/\s+/)),
    [
      ['30.0', '12.0', 'FAILED', 'test/a.test.ts'],
      ['2.0', '1.5', 'ok', 'test/b.test.ts'],
      ['0.5', '-', 'ok', 'test/c.test.ts'],
    ],
  );

  const file = path.join(dir, 'timings.txt');
  const top = writeTimingReport(file, report);
  t.equal(await readFile(file, 'utf8'), report, 'written whole');
  t.equal(top, lines.join('\n'), 'the heading and up to ten files are printed');
  t.same(
    [...earlierTimings(file)],
    [
      ['test/a.test.ts', 30_000],
      ['test/b.test.ts', 2_000],
      ['test/c.test.ts', 500],
    ],
    'the next run reads each file back',
  );
  t.same(earlierTimings(path.join(dir, 'none.txt')).size, 0, 'no report: nothing known');
});

t.test('the log of the files ended so far grows a line per file', async (t) => {
  const file = path.join(dir, 'so-far.txt');
  const log = timingLog(file);
  log(timings[0]!);
  t.same((await readFile(file, 'utf8')).trimEnd().split('\n').length, 2, 'a heading and the first file');
  log(timings[1]!);
  const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
  t.same(
    lines.slice(1).map((line) => line.trim().split(/\s+/).at(-1)),
    ['test/b.test.ts', 'test/a.test.ts'],
    'in the order they ended',
  );
});
