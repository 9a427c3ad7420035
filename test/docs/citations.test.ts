// Covers scripts/citations.ts, the check `npm run lint` runs: a comment that cites a section of
// the old external specification or an issue by number fails it, naming file and line; the
// same words in a dated decision or benchmark record pass; and this repository passes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';

const root = path.resolve(import.meta.dirname, '../..');
const script = path.join(root, 'scripts/citations.ts');
const check = (dir: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', script, dir], { cwd: root, encoding: 'utf8' });

/** A git repository holding `files`, some committed and some not yet added. */
function repository(t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pier-citations-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  spawnSync('git', ['init', '-q'], { cwd: dir });
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

// The words are put together here so that this file does not cite anything itself.
const spec = (n: string) => ['spec', n].join(' ');
const issue = (n: string) => ['issue', n].join(' ');

t.test('a cited spec section or issue number fails, with file and line', async (t) => {
  const dir = repository(t, {
    'api/a.ts': `const a = 1;\n// The answer never says why (${spec('5.10')}).\n`,
    'flow/b.ts': `/** Raised since ${issue('#34')}. */\nexport {};\n`,
    'docs/c.md': `Lines in id order (${['Issues', '12–19'].join(' ')}).\n`,
  });
  const run = check(dir);
  t.equal(run.status, 1);
  t.match(run.stderr, /3 citation\(s\)/);
  t.match(run.stderr, /api\/a\.ts:2:/);
  t.match(run.stderr, /flow\/b\.ts:1:/);
  t.match(run.stderr, /docs\/c\.md:1:/);
});

t.test('dated records may name the issue they came from; other words pass', async (t) => {
  const dir = repository(t, {
    'docs/decisions/x.md': `# X\n\nMade for ${issue('32')}.\n`,
    'benchmarks/history/2026-11-23-y.md': `# Y\n\n${issue('31')}, item 4.\n`,
    'api/c.ts': `// The spec object of a field; an issue of zod. See docs/api/conventions.md#errors.\n`,
  });
  const run = check(dir);
  t.equal(run.status, 0, run.stderr);
});

t.test('this repository cites neither', async (t) => {
  const run = check(root);
  t.equal(run.status, 0, run.stderr);
});
