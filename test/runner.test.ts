// Covers test/runner.ts running one file: a file whose tests all pass and that exits is ok; one
// whose tests all pass and that never exits (Node 20 spinning over a socket reset while its end
// was being sent, as CI once saw for 15 minutes) is killed soon after its last line, reported
// not ok with the reason, and its output kept; one that leaves a timer and a listening server is
// told what it holds before it is killed (test/still-open.mjs), the reason naming both; and running several: past its jobs a light file
// starts only while the cores are idle, a heavy one never.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { Writable } from 'node:stream';
import { runFile, runTestFiles } from './runner.js';

const root = path.resolve(import.meta.dirname, '..');
// Inside the checkout, so the samples resolve 'tap'; a dot folder, so test/run.ts never picks it up.
const dir = await mkdtemp(path.join(root, 'test', '.runner-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

const passes = `import t from 'tap';
t.test('passes', async (t) => t.ok(true, 'fine'));
`;
// The leak itself: end() and then a reset, while the end is still being sent.
const neverExits = `import net from 'node:net';
import t from 'tap';
t.test('passes, then leaks a socket', async (t) => {
  const server = net.createServer((socket) => {
    socket.on('error', () => {});
    socket.end();
    socket.resetAndDestroy();
    server.close();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = net.connect(server.address().port, '127.0.0.1');
  client.on('error', () => {});
  await new Promise((resolve) => client.on('close', resolve));
  t.ok(true, 'fine');
});
`;

const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^TAP/.test(k)));
const options = { cwd: dir, jobs: 1, timeoutSeconds: 60, env, exitAfterEndMs: 2000 };

t.test('a file that passes and exits is ok', async (t) => {
  await writeFile(path.join(dir, 'passes.mjs'), passes);
  const outcome = await runFile('passes.mjs', options);
  t.ok(outcome.ok, 'ok');
  t.match(outcome.output, /ok 1 - fine/, 'its output');
});

t.test('a file that passes and does not exit is killed soon after, and not ok', async (t) => {
  await writeFile(path.join(dir, 'never-exits.mjs'), neverExits);
  const outcome = await runFile('never-exits.mjs', options);
  t.notOk(outcome.ok, 'not ok');
  t.match(outcome.why, /^killed: its tests ended, and it had not exited 2 s later/, 'the reason');
  t.match(outcome.output, /ok 1 - fine/, 'its output kept');
  t.ok(outcome.ms < 20_000, `ended in ${outcome.ms} ms, not at the file's timeout`);
});

t.test('what holds a file that does not exit is named in the reason', async (t) => {
  // Left by a teardown, which runs after the tests end: a handle left by a test would keep tap's own
  // last line from being written, and the file would end at its timeout instead.
  const holds = `import net from 'node:net';
import t from 'tap';
t.test('passes', async (t) => t.ok(true, 'fine'));
t.teardown(async () => {
  setInterval(() => {}, 1000);
  await new Promise((resolve) => net.createServer().listen(0, '127.0.0.1', resolve));
});
`;
  await writeFile(path.join(dir, 'holds.mjs'), holds);
  const outcome = await runFile('holds.mjs', options);
  t.notOk(outcome.ok, 'not ok');
  t.match(
    outcome.why,
    /^killed: its tests ended, and it had not exited 2 s later; still open: .*Timeout.*\(.*server port \d+/,
    `the reason names the timer and the server: ${outcome.why}`,
  );
});

t.test('beyond its jobs, a light file starts while the cores are idle, a heavy one never', async (t) => {
  const sleeps = `import t from 'tap';
t.test('sleeps', async (t) => { await new Promise((resolve) => setTimeout(resolve, 3000)); t.ok(true, 'slept'); });
`;
  const files = ['a.mjs', 'b.mjs', 'c.mjs', 'heavy.mjs'];
  for (const file of files) await writeFile(path.join(dir, file), sleeps);
  const starts = (idleShare: number) => {
    let output = '';
    const out = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output += chunk.toString('utf8');
        done();
      },
    });
    const idle = { idle: () => idleShare, restart: () => {} };
    const begun = Date.now();
    return runTestFiles(files, { ...options, maxJobs: 3, heavy: new Set(['heavy.mjs']), idle, out }).then(
      ({ passed, timings }) => ({ passed, output, timings, ms: Date.now() - begun }),
    );
  };
  const busy = await starts(0);
  t.ok(busy.passed, 'every file passed with the cores busy');
  t.ok(busy.ms >= 4 * 3000, `one at a time while the cores are busy (${busy.ms} ms)`);
  t.match(busy.output, /4 passed, 0 failed/, 'the totals line');
  const idle = await starts(1);
  t.ok(idle.passed, 'every file passed with the cores idle');
  const heavy = idle.timings.find((timing) => timing.file === 'heavy.mjs')!;
  const lightEnds = idle.timings.filter((timing) => timing.file !== 'heavy.mjs');
  // Side by side, the run took less than its files' own times added up, by more than a sleep. Each
  // file's own time counts its process's start, so a loaded machine's slower starts (three at once
  // here) move both sides: against the one-at-a-time run's wall time, they made this flaky.
  const ownTimes = [...lightEnds, heavy].reduce((sum, timing) => sum + timing.ms, 0);
  t.ok(
    idle.ms < ownTimes - 3000,
    `the light files side by side while the cores are idle (${idle.ms} ms for ${ownTimes} ms of files)`,
  );
  t.equal(idle.timings.at(-1)?.file, 'heavy.mjs', 'the heavy file ran only in the one job, after the others');
  t.ok(heavy && lightEnds.length === 3, 'all four ran');
});
