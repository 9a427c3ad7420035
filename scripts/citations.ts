/**
 * Fails when a file cites the old external specification by section (the word spec, then a
 * section number) or a tracker issue by its number: neither is in a clone. Code and docs cite the rule itself or
 * the API reference, docs/api/<page>.md#<section>; the commit history keeps issue numbers.
 * Dated records (docs/decisions/, benchmarks/history/) may name the issue they came from.
 *
 *   node --import tsx scripts/citations.ts [directory]   prints each hit, exits 1 when any
 *
 * Run by `npm run lint`. It reads tracked and untracked (not ignored) files with `git grep`; in a
 * copy that is not a git checkout (CI tests one), the files below the directory that .gitignore
 * does not exclude (`git grep --no-index`).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..'));
/** The word spec, specification or issue(s), an optional "section" or "#", then a digit; any case. */
const citation = String.raw`\b(spec|specification|issues?)( section)? #?[0-9]`;
const datedRecords = ['docs/decisions/', 'benchmarks/history/'];

const inCheckout =
  spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, encoding: 'utf8' }).stdout.trim() ===
  'true';
const found = spawnSync(
  'git',
  [
    'grep',
    // --no-index reads .gitignore only when asked to (--exclude-standard).
    ...(inCheckout ? ['--untracked'] : ['--no-index', '--exclude-standard']),
    '-nIiE',
    citation,
    '--',
    '.',
    ':!package-lock.json',
    ...datedRecords.map((dir) => `:!${dir}`),
  ],
  { cwd: root, encoding: 'utf8' },
);
// git grep exits 1 when nothing matches, 0 with matches, above 1 on a failure of its own.
if (found.status !== 0 && found.status !== 1) {
  process.stderr.write(found.stderr);
  process.exit(2);
}
const hits = found.stdout.split('\n').filter(Boolean);
if (hits.length > 0) {
  console.error(
    `${hits.length} citation(s) of a spec section or an issue number; cite the rule itself or ` +
      `docs/api/<page>.md#<section> instead (the commit message may name the issue):`,
  );
  for (const hit of hits) console.error(`  ${hit}`);
  process.exit(1);
}
