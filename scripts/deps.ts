/**
 * Prints the code's dependency graph and fails (exit 1) on what would tangle it:
 *
 * - the top-level folders, one line `from → to  count` per pair where one imports the other;
 * - the subfolders of each folder in `checkedInside` (runtime/alerts, runtime/dispatch, …) the same way;
 * - at either level, any two folders that depend on each other both ways;
 * - any import cycle between files (type-only imports count: a cycle of types is still a tangle).
 *
 *   node --import tsx scripts/deps.ts            the checks above
 *   node --import tsx scripts/deps.ts --depth 2  the whole graph one level further down (actors/as2, …)
 *   node --import tsx scripts/deps.ts --tests    with tests, fixtures, benchmarks and scripts too
 *   node --import tsx scripts/deps.ts --root DIR another tree (the planted-cycle test uses it)
 *
 * Without --tests it reads the code that ships: tests (test/, *.test.ts, fixtures/) and the
 * benchmark and script harnesses may import any layer, so they are left out.
 */
import path from 'node:path';
import { folderEdges, importCycles, twoWayPairs } from './deps/graph.js';
import { importEdges } from './deps/imports.js';

/** The folders whose subfolders must point one way too (docs/architecture.md, "Inside runtime/"). */
export const checkedInside = ['runtime', 'flow'];

const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const root = path.resolve(option('--root') ?? path.join(import.meta.dirname, '..'));
const depth = Number(option('--depth') ?? 1);
const edges = importEdges(root, process.argv.includes('--tests'));

function print(title: string | undefined, counts: Map<string, number>): string[] {
  const lines = [...counts.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = Math.max(0, ...lines.map(([key]) => key.length));
  if (title !== undefined) console.log(`\n${title}`);
  for (const [key, count] of lines) console.log(`${key.padEnd(width)}  ${count}`);
  return twoWayPairs(counts);
}

const bothWays = print(undefined, folderEdges(edges, depth));
for (const folder of depth === 1 ? checkedInside : []) {
  bothWays.push(...print(`inside ${folder}/:`, folderEdges(edges, 2, folder)));
}
const cycles = importCycles(edges);

console.log(
  bothWays.length === 0 ? '\nno two folders depend on each other' : `\nboth ways:\n${bothWays.join('\n')}`,
);
console.log(cycles.length === 0 ? 'no import cycle' : `import cycles:\n${cycles.join('\n')}`);
process.exitCode = bothWays.length === 0 && cycles.length === 0 ? 0 : 1;
