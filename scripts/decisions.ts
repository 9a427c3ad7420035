/**
 * Writes docs/decisions/README.md, the index of the decision records beside it, grouped by
 * area. Each record is one file in the form docs/contributing.md describes: `# Title`, then
 * `- Date:`, `- Status:` and `- Area:` lines, then Context, Decision and Consequences sections
 * (a superseded record may keep only its header: it points to the one that replaced it).
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
  /** One of `areas`, or `other` when the record names none of them (or no area at all). */
  area: string;
}

/**
 * The areas, in the order a newcomer reads them, each with what its records settle. A record's
 * `- Area:` line names one of these; a record naming another (or none, as a branch written before
 * these areas may) is listed under "Other" until its area is set, and the generator says so.
 */
export const areas: ReadonlyArray<readonly [name: string, covers: string]> = [
  ['API', 'the REST API edge: bodies, errors, paging, tokens, users, settings, audit'],
  ['Identity and sign-in', 'sessions, passwords, federated accounts, sign-in to the web UI'],
  ['Web UI', 'pages, forms, the partner set-up wizard, the dashboard'],
  ['AS2 protocol', 'the AS2 library: MIME, signing, encryption, MIC, receipts, interop profiles'],
  ['AS2 sending', 'the sender: HTTP, proxies, synchronous and asynchronous receipts, retries'],
  ['AS2 receiving', 'the receiver: strangers, duplicates, opening messages, handing them on'],
  ['Certificates and CEM', 'the certificate store, requests, expiry, rollover, certificate exchange'],
  ['EDI', 'X12 and EDIFACT: envelopes, control numbers, acknowledgements, JSON, routing'],
  ['Connectors', 'file writer and poller, SFTP, HTTP and other plugin types'],
  ['Message flow', "routes, deliveries, claims, acceptances and the flow's database statements"],
  ['Payload storage', 'where message bodies live: database, local disk, S3'],
  ['Runtime', 'supervisor, plugin instances, threads, start and stop, faults and limits'],
  ['Events, alerts and metrics', 'the event stream, alerts, notifications, Prometheus metrics'],
  ['Operations', 'CLI, doctor, logs, search, configuration files, service, high availability'],
  ['Build, tests and code', 'code layout, builds and releases, tests, documentation'],
];
const other = 'Other';

const decisionsDir = path.resolve(import.meta.dirname, '../docs/decisions');
const indexFile = path.join(decisionsDir, 'README.md');
const sections = ['## Context', '## Decision', '## Consequences'];
const areaNames = new Set(areas.map(([name]) => name));

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
  const named = field('Area');
  const area = named && areaNames.has(named) ? named : other;
  if (!title) problems.push('no "# Title" on the first line');
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) problems.push('no "- Date: YYYY-MM-DD"');
  if (!status || !/^(accepted|superseded by \[[^\]]+\]\([a-z0-9-]+\.md\))$/.test(status))
    problems.push('no "- Status: accepted" or "- Status: superseded by [title](file.md)"');
  if (status !== undefined && !status.startsWith('superseded by')) {
    let from = 0;
    for (const heading of sections) {
      const at = text.indexOf(`\n${heading}\n`, from);
      if (at < 0) problems.push(`no "${heading}" section after the ones before it`);
      else from = at + 1;
    }
  }
  if (problems.length > 0 || !title || !date || !status) return { file, problems };
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

/**
 * The index: the areas in their reading order ("Other" last, when a record is in it), each with
 * its current decisions by title and then, on one line, the superseded ones; as prettier writes it.
 */
export async function renderIndex(records: readonly DecisionRecord[]): Promise<string> {
  const link = (r: DecisionRecord) => `[${r.title}](${r.file})`;
  const byTitle = (a: DecisionRecord, b: DecisionRecord) => a.title.localeCompare(b.title, 'en');
  const current = records.filter((r) => r.status === 'accepted');
  const out = [
    '# Decisions',
    '',
    'Where the API reference ([docs/api/](../api/README.md)) or the standards pier speaks leave a',
    'choice open, these records say what pier does and why: one file per rule, its current',
    'statement, with its context and consequences. Measurements behind a record are in',
    '[benchmarks/history/](../../benchmarks/history/). A record a later one replaced stays as a',
    'pointer to it. How to add one: [docs/contributing.md](../contributing.md).',
    '',
    '<!-- Written by `npm run decisions` (scripts/decisions.ts) from the files beside it; do not edit. -->',
    '',
    `${current.length} current decisions in ${areas.length} areas:`,
    '',
    ...areas.map(([name, covers]) => `- ${name}: ${covers}.`),
  ];
  for (const [name, covers] of [
    ...areas,
    [other, 'records whose `- Area:` names none of the above'] as const,
  ]) {
    const inArea = records.filter((r) => r.area === name);
    if (inArea.length === 0) continue;
    const superseded = inArea.filter((r) => r.status !== 'accepted').sort(byTitle);
    out.push('', `## ${name}`, '');
    if (name === other) out.push(`${covers}: give each one of the areas above.`, '');
    for (const r of inArea.filter((r) => r.status === 'accepted').sort(byTitle)) out.push(`- ${link(r)}`);
    if (superseded.length > 0) out.push('', `Superseded: ${superseded.map(link).join('; ')}.`);
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
  const unplaced = records.filter((r) => r.area === other).map((r) => r.file);
  if (unplaced.length > 0)
    console.warn(
      `Listed under "Other": give each an "- Area:" of scripts/decisions.ts's areas:\n  ${unplaced.join('\n  ')}`,
    );
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
