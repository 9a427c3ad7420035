// Covers test/runner.ts running one file: a file whose tests all pass and that exits is ok; one
// whose tests all pass and that never exits (Node 20 spinning over a socket reset while its end
// was being sent, as CI once saw for 15 minutes) is killed soon after its last line, reported
// not ok with the reason, and its output kept.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { runFile } from './runner.js';

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
  t.equal(outcome.why, 'killed: its tests ended, and it had not exited 2 s later', 'the reason');
  t.match(outcome.output, /ok 1 - fine/, 'its output kept');
  t.ok(outcome.ms < 20_000, `ended in ${outcome.ms} ms, not at the file's timeout`);
});
