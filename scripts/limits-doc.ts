/**
 * `npm run limits`: writes docs/limits.md from the table of limits (limits/limits.ts): each limit's
 * name, value, why, and the files that read it, found by their `limits.<name>`. The page is never
 * written by hand; test/docs/limits.test.ts fails when it differs from what this makes.
 *
 *   node --import tsx scripts/limits-doc.ts
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import prettier from 'prettier';
import { limitAreas, limitTable, type Limit } from '../limits/limits.js';

const root = path.resolve(import.meta.dirname, '..');
export const limitsFile = path.join(root, 'docs/limits.md');
/** The folders of the product: where a limit is read (tests, benchmarks and scripts are not). */
const productFolders = ['api', 'actors', 'cli', 'flow', 'protocol', 'runtime', 'storage'];

function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : productFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** For each limit, the product files that read it (relative to the repository), sorted. */
export function readersOf(): Map<string, string[]> {
  const readers = new Map<string, string[]>(Object.keys(limitTable).map((name) => [name, []]));
  for (const file of productFolders.flatMap((folder) => productFiles(path.join(root, folder))).sort()) {
    const text = readFileSync(file, 'utf8');
    for (const name of new Set([...text.matchAll(/\blimits\.([A-Za-z0-9]+)\b/g)].map((m) => m[1]!))) {
      readers.get(name)?.push(path.relative(root, file));
    }
  }
  return readers;
}

const grouped = (n: number) => n.toLocaleString('en-US');

/** One value as a reader takes it, in the unit its name says (Ms, Seconds, Bytes, Chars, Mib). */
function shown(name: string, value: number): string {
  if (name.endsWith('Ms')) {
    if (value >= 60_000 && value % 60_000 === 0) return `${grouped(value / 60_000)} min`;
    if (value >= 1000 && value % 1000 === 0) return `${grouped(value / 1000)} s`;
    return `${grouped(value)} ms`;
  }
  if (name.endsWith('Seconds')) {
    if (value >= 86_400 && value % 86_400 === 0) return `${grouped(value / 86_400)} days`;
    if (value >= 3600 && value % 3600 === 0) return `${grouped(value / 3600)} h`;
    if (value >= 60 && value % 60 === 0) return `${grouped(value / 60)} min`;
    return `${grouped(value)} s`;
  }
  if (name.endsWith('Bytes')) {
    if (value >= 1024 * 1024 && value % (1024 * 1024) === 0) return `${grouped(value / 1024 / 1024)} MiB`;
    if (value >= 1024 && value % 1024 === 0) return `${grouped(value / 1024)} KiB`;
    return `${grouped(value)} bytes`;
  }
  if (name.endsWith('Chars')) return `${grouped(value)} characters`;
  if (name.endsWith('Mib')) return `${grouped(value)} MiB`;
  return grouped(value);
}

function valueOf(name: string, limit: Limit): string {
  return typeof limit.value === 'number'
    ? shown(name, limit.value)
    : limit.value.map((v) => shown(name, v)).join(', ');
}

/** docs/limits.md as the table makes it, formatted as the lint expects. */
export async function renderLimits(): Promise<string> {
  const readers = readersOf();
  const entries = Object.entries(limitTable) as [string, Limit][];
  const sections = limitAreas.map((area) => {
    const rows = entries
      .filter(([, limit]) => limit.area === area)
      .map(([name, limit]) => {
        const files = (readers.get(name) ?? []).map((file) => `\`${file}\``).join(', ');
        return `- **\`${name}\`** = ${valueOf(name, limit)}. ${limit.why} Read in ${files}.`;
      });
    return `## ${area}\n\n${rows.join('\n')}\n`;
  });
  const page = `# Limits

<!-- npm run limits writes this page from limits/limits.ts; do not edit it by hand -->

Pier's tuning limits: the timeouts, intervals, batch and pool sizes, retry waits, size caps and
deadlines its code works within. They are kept in one table, \`limits/limits.ts\`, each with its
value and why it is what it is, and the code reads them where it uses them as
\`limits.<name>\` ([decision](decisions/one-table-of-limits.md)). To change one, edit its entry and
run \`npm run limits\`, which writes this page; a test fails when the page and the table differ.

The unit is in the name: \`Ms\` milliseconds, \`Seconds\`, \`Bytes\`, \`Chars\` characters, \`Mib\`
mebibytes; a name without one is a count. ${entries.length} limits in ${limitAreas.length} parts.
Settings an operator changes per instance (an actor's settings, \`pier serve\`'s options) are not
here: an instance's settings are in [api/plugin-configs.md](api/plugin-configs.md), the process's options in the [README](../README.md).

${sections.join('\n')}`;
  const options = (await prettier.resolveConfig(limitsFile)) ?? {};
  return prettier.format(page, { ...options, filepath: limitsFile });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const page = await renderLimits();
  let before = '';
  try {
    before = readFileSync(limitsFile, 'utf8');
  } catch {
    // Not written yet.
  }
  if (page !== before) {
    writeFileSync(limitsFile, page);
    console.error('docs/limits.md: written anew');
  }
}
