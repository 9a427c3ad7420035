/**
 * `npm run deps`: prints the folder graph of scripts/deps.ts and, run without options, writes
 * it into docs/architecture.md between the markers below, so the graph there is always the one
 * the tree gives and never drawn by hand. With options (`--depth 2`, `--tests`) it only prints.
 * Exits with scripts/deps.ts's status (1 when two folders depend on each other).
 *
 *   node --import tsx scripts/deps-doc.ts [options of scripts/deps.ts]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
export const architectureFile = path.join(root, 'docs/architecture.md');
export const startMarker = '<!-- npm run deps writes the graph below; do not edit it by hand -->';
export const endMarker = '<!-- end of the graph written by npm run deps -->';

/** What scripts/deps.ts prints for these options, and its exit status. */
export function runDeps(options: readonly string[] = []): { output: string; status: number } {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'scripts/deps.ts'), ...options],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  if (run.status === null || run.status > 1) throw new Error(`scripts/deps.ts failed: ${run.stderr}`);
  return { output: run.stdout, status: run.status };
}

/** The document with the block between the markers replaced by `output` as a code block. */
export function withGraph(document: string, output: string): string {
  const start = document.indexOf(startMarker);
  const end = document.indexOf(endMarker);
  if (start < 0 || end < start)
    throw new Error(`docs/architecture.md lacks the markers "${startMarker}" … "${endMarker}"`);
  const block = `${startMarker}\n\n\`\`\`\n${output.trimEnd()}\n\`\`\`\n\n`;
  return document.slice(0, start) + block + document.slice(end);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const options = process.argv.slice(2);
  const { output, status } = runDeps(options);
  process.stdout.write(output);
  if (options.length === 0) {
    const before = readFileSync(architectureFile, 'utf8');
    const after = withGraph(before, output);
    if (after !== before) {
      writeFileSync(architectureFile, after);
      console.error('docs/architecture.md: the graph is written anew');
    }
  }
  process.exit(status);
}
