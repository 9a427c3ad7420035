/**
 * Writes docs/decisions/README.md, the index of the decision records beside it, grouped by
 * area. Each record is one file in the form docs/contributing.md describes: `# Title`, then
 * `- Date:`, `- Status:` and `- Area:` lines, then Context, Decision and Consequences sections.
 *
 *   node --import tsx scripts/decisions.ts           rewrites the index (npm run decisions)
 *   node --import tsx scripts/decisions.ts --check   exits 1 when the index is out of date or
 *                                                    a record does not keep the form
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';

export interface DecisionRecord {
  file: string;
  title: string;
  date: string;
  status: string;
  area: string;
}

const decisionsDir = path.resolve(import.meta.dirname, '../docs/decisions');
const indexFile = path.join(decisionsDir, 'README.md');
const sections = ['## Context', '## Decision', '## Consequences'];

/** A record's header, or the ways it departs from the form. */
export function readRecord(
  file: string,
  text: string,
): DecisionRecord | { file: string; problems: string[] } {
  const problems: string[] = [];
  const title = /^# (.+)\n/.exec(text)?.[1]?.trim();
  const field = (name: string) => new RegExp(`^- ${name}: (.+)$`, 'm').exec(text)?.[1]?.trim();
  const date = field('Date');
  const status = field('Status');
  const area = field('Area');
  if (!title) problems.push('no "# Title" on the first line');
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) problems.push('no "- Date: YYYY-MM-DD"');
  if (!status || !/^(accepted|superseded by \[[^\]]+\]\([a-z0-9-]+\.md\))$/.test(status))
    problems.push('no "- Status: accepted" or "- Status: superseded by [title](file.md)"');
  if (!area) problems.push('no "- Area:"');
  let from = 0;
  for (const heading of sections) {
    const at = text.indexOf(`\n${heading}\n`, from);
    if (at < 0) problems.push(`no "${heading}" section after the ones before it`);
    else from = at + 1;
  }
  if (problems.length > 0 || !title || !date || !status || !area) return { file, problems };
  return { file, title, date, status, area };
}

export function readRecords(dir = decisionsDir) {
  const records: DecisionRecord[] = [];
  const broken: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md')) {
    const record = readRecord(file, readFileSync(path.join(dir, file), 'utf8'));
    if ('problems' in record) broken.push(...record.problems.map((p) => `${file}: ${p}`));
    else records.push(record);
  }
  return { records, broken };
}

/** The index: areas in alphabetical order, each area's decisions oldest first, as prettier writes it. */
export async function renderIndex(records: readonly DecisionRecord[]): Promise<string> {
  const byArea = new Map<string, DecisionRecord[]>();
  for (const r of records) byArea.set(r.area, [...(byArea.get(r.area) ?? []), r]);
  const areas = [...byArea.keys()].sort((a, b) => a.localeCompare(b, 'en'));
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  const out = [
    '# Decisions',
    '',
    'Where the API reference ([docs/api/](../api/README.md)) or the standards pier speaks leave a',
    'choice open, these records say what pier does and why: one file per decision, each with its',
    'context, the decision and its consequences. A decision that a later one overturns stays, marked',
    '`superseded by` the one that replaced it. How to add one: [docs/contributing.md](../contributing.md).',
    '',
    '<!-- Written by `npm run decisions` (scripts/decisions.ts) from the files beside it; do not edit. -->',
    '',
    `${records.length} decisions in ${areas.length} areas.`,
  ];
  for (const area of areas) {
    const rows = byArea
      .get(area)!
      .sort((a, b) => a.date.localeCompare(b.date) || a.title.localeCompare(b.title, 'en'));
    out.push('', `## ${area}`, '', '| Decision | Date | Status |', '| --- | --- | --- |');
    for (const r of rows) {
      const status = r.status === 'accepted' ? 'accepted' : r.status;
      out.push(`| [${escape(r.title)}](${r.file}) | ${r.date} | ${escape(status)} |`);
    }
  }
  const options = (await resolveConfig(indexFile)) ?? {};
  return format(`${out.join('\n')}\n`, { ...options, parser: 'markdown' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { records, broken } = readRecords();
  if (broken.length > 0) {
    console.error(`Decision records that do not keep the form:\n  ${broken.join('\n  ')}`);
    process.exit(1);
  }
  const index = await renderIndex(records);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(indexFile, 'utf8');
    } catch {
      // no index yet: out of date
    }
    if (current !== index) {
      console.error('docs/decisions/README.md is out of date: run `npm run decisions`.');
      process.exit(1);
    }
  } else {
    writeFileSync(indexFile, index);
    console.log(`docs/decisions/README.md: ${records.length} decisions`);
  }
}
