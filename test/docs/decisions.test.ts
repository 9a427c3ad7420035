// Covers the decision records in docs/decisions/: every record keeps the form (title, date,
// status, area, then Context, Decision and Consequences), a superseded one links to a record
// that exists, and the index README.md is the one `npm run decisions` writes from them.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { readRecord, readRecords, renderIndex } from '../../scripts/decisions.js';

const decisionsDir = path.resolve(import.meta.dirname, '../../docs/decisions');

t.test('every record keeps the form', async (t) => {
  const { records, broken } = readRecords();
  t.same(broken, [], 'records that do not keep the form');
  t.ok(records.length > 200, `${records.length} records read`);
});

t.test('a superseded record names one that exists', async (t) => {
  const { records } = readRecords();
  const superseded = records.filter((r) => r.status.startsWith('superseded by'));
  t.ok(superseded.length >= 3, `${superseded.length} superseded records`);
  for (const r of superseded) {
    const target = /\(([a-z0-9-]+\.md)\)$/.exec(r.status)![1]!;
    t.ok(existsSync(path.join(decisionsDir, target)), `${r.file} → ${target}`);
  }
});

t.test('the index is up to date (else run npm run decisions)', async (t) => {
  const { records } = readRecords();
  const index = readFileSync(path.join(decisionsDir, 'README.md'), 'utf8');
  t.equal(index, await renderIndex(records));
  for (const r of records) t.ok(index.includes(`](${r.file})`), `the index links ${r.file}`);
});

t.test('a record without its sections is named with what it lacks', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pier-decisions-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const text = '# Partial\n\n- Date: 2026-11-23\n- Status: maybe\n- Area: Tests\n\n## Decision\n\nText.\n';
  writeFileSync(path.join(dir, 'partial.md'), text);
  const { broken } = readRecords(dir);
  t.same(broken, [
    'partial.md: no "- Status: accepted" or "- Status: superseded by [title](file.md)"',
    'partial.md: no "## Context" section after the ones before it',
    'partial.md: no "## Consequences" section after the ones before it',
  ]);
  t.match(readRecord('x.md', '# X\n'), { problems: ['no "- Date: YYYY-MM-DD"'] });
});
