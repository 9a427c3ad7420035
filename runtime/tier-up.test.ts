// Covers `pier serve`'s TurboFan threshold (tier-up.ts): set in a fresh node, which accepts it
// without a word (V8 prints an error for a flag it does not know); an operator's own setting is
// kept; Node 20's V8, which lacks the flag, is left alone. What the threshold changes is measured
// in benchmarks (benchmarks/history/2026-11-28-turbofan-sooner.md): in a fresh node at V8's
// default, a small function was optimized at its 1,649th call in one run and past its 10,000th in
// another, so a test of when it happens could not be steady.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { setTurbofanThreshold } from './tier-up.js';

const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const modern = Number(process.versions.v8.split('.')[0]) >= 12;
// The compiled module where the suite runs, else the source through tsx.
const compiled = path.join(import.meta.dirname, 'tier-up.js');
const [module, loader] = existsSync(compiled)
  ? [compiled, []]
  : [path.join(import.meta.dirname, 'tier-up.ts'), ['--import', 'tsx']];

/** In a fresh node given `nodeArgs`: the setting made, and what the process printed. */
async function setIn(nodeArgs: string[]): Promise<{ set: string | null; stderr: string }> {
  const script = `
    const { setTurbofanThreshold } = await import(${JSON.stringify(pathToFileURL(module).href)});
    console.log(JSON.stringify(setTurbofanThreshold()));`;
  const { stdout, stderr } = await run(
    process.execPath,
    [...nodeArgs, ...loader, '--input-type=module', '-e', script],
    { cwd: root },
  );
  return { set: JSON.parse(stdout) as string | null, stderr };
}

t.test('pier serve sets the threshold, and V8 takes it without a word', async (t) => {
  const ours = await setIn([]);
  t.same(ours, { set: modern ? '--invocation-count-for-turbofan=500' : null, stderr: '' });
  if (!modern) return; // node 20 refuses the flag on its command line
  t.same(
    await setIn(['--invocation-count-for-turbofan=3000']),
    { set: null, stderr: '' },
    "the operator's setting is kept",
  );
});

t.test('the setting is left to the operator and to V8s that know it', async (t) => {
  t.equal(setTurbofanThreshold(['--invocation_count_for_turbofan=100'], '13.6.233'), null, 'either spelling');
  t.equal(setTurbofanThreshold([], '11.3.244.8-node.33'), null, 'Node 20');
});
