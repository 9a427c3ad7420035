/**
 * Prints the folder-level dependency graph of the code: one line `from → to  count` per pair
 * of top-level folders that one imports from the other (relative imports, static and dynamic),
 * then any pair that depends both ways. Exits 1 when such a pair exists.
 *
 *   node --import tsx scripts/deps.ts            top-level folders
 *   node --import tsx scripts/deps.ts --depth 2  folders one level further down (actors/as2, …)
 *   node --import tsx scripts/deps.ts --tests    with tests, fixtures, benchmarks and scripts too
 *
 * Without --tests it reads the code that ships: tests (test/, *.test.ts, fixtures/) and the
 * benchmark and script harnesses may import any layer, so they are left out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const depthFlag = process.argv.indexOf('--depth');
const depth = depthFlag >= 0 ? Number(process.argv[depthFlag + 1]) : 1;
const withTests = process.argv.includes('--tests');
const skipped = new Set(['node_modules', 'data', 'dist', 'payloads', 'docs', 'coverage']);
if (!withTests) for (const harness of ['test', 'benchmarks', 'scripts', 'fixtures']) skipped.add(harness);
const codeFile = /\.(ts|mts|js|mjs)$/;
const specifier = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || skipped.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (codeFile.test(entry.name) && (withTests || !entry.name.includes('.test.'))) out.push(full);
  }
  return out;
}

/** The folder a file belongs to at the chosen depth; files at the top level are `(root)`. */
function folderOf(file: string): string {
  const parts = path.relative(root, file).split(path.sep);
  const dirs = parts.slice(0, -1);
  if (dirs.length === 0) return '(root)';
  return dirs.slice(0, depth).join('/');
}

const edges = new Map<string, number>();
for (const file of sourceFiles(root)) {
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(specifier)) {
    const target = path.resolve(path.dirname(file), match[1]!);
    const from = folderOf(file);
    const to = folderOf(target);
    if (from === to || to.startsWith(`${from}/`) || from.startsWith(`${to}/`)) continue;
    const key = `${from} → ${to}`;
    edges.set(key, (edges.get(key) ?? 0) + 1);
  }
}

const lines = [...edges.entries()].sort(([a], [b]) => a.localeCompare(b));
const width = Math.max(...lines.map(([key]) => key.length));
for (const [key, count] of lines) console.log(`${key.padEnd(width)}  ${count}`);

const cycles = lines
  .map(([key]) => key.split(' → ') as [string, string])
  .filter(([a, b]) => a < b && edges.has(`${b} → ${a}`))
  .map(([a, b]) => `${a} ⇄ ${b} (${edges.get(`${a} → ${b}`)} / ${edges.get(`${b} → ${a}`)})`);
console.log(
  cycles.length === 0 ? '\nno two folders depend on each other' : `\nboth ways:\n${cycles.join('\n')}`,
);
process.exitCode = cycles.length === 0 ? 0 : 1;
