/**
 * The code's imports as edges between files: every relative import (static, dynamic, `export …
 * from`, type-only too) of every source file under a root, resolved to the file it names.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One import: `from` imports `to` (both paths relative to the root, with `/`). */
export interface ImportEdge {
  from: string;
  to: string;
}

/** Folders of the root that hold data or output, not code (storage/payloads/ is code and is read). */
const notCode = ['data', 'dist', 'payloads', 'docs', 'coverage'];
/** Tests, fixtures and harnesses may import any layer, so they are left out unless asked for. */
const harnesses = ['test', 'benchmarks', 'scripts', 'fixtures'];
const codeFile = /\.(ts|mts|js|mjs)$/;
const specifier =
  /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]|\brequire\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(root: string, dir: string, withTests: boolean): string[] {
  const skipped = new Set(['node_modules', ...(withTests ? [] : harnesses)]);
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || skipped.has(entry.name)) continue;
    if (dir === root && notCode.includes(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(root, full, withTests));
    else if (codeFile.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      if (withTests || !entry.name.includes('.test.')) out.push(full);
    }
  }
  return out;
}

/** The file an import names: TypeScript sources are imported by their `.js` name. */
function resolveTarget(target: string): string {
  if (existsSync(target)) return target;
  for (const [built, source] of [
    ['.js', '.ts'],
    ['.mjs', '.mts'],
  ] as const) {
    if (target.endsWith(built)) {
      const candidate = target.slice(0, -built.length) + source;
      if (existsSync(candidate)) return candidate;
    }
  }
  return target;
}

/** Every relative import of the code under `root` (with tests and harnesses when `withTests`). */
export function importEdges(root: string, withTests = false): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');
  for (const file of sourceFiles(root, root, withTests)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(specifier)) {
      const target = resolveTarget(path.resolve(path.dirname(file), (match[1] ?? match[2])!));
      edges.push({ from: relative(file), to: relative(target) });
    }
  }
  return edges;
}
