// Covers the decision records in docs/decisions/: every record keeps the form (title, date,
// status, area, then Context, Decision and Consequences; a superseded one may keep its header
// alone) and names one of the index's areas, a superseded one links to a current record, and
// the index README.md is the one `npm run decisions` writes from them, grouped by area.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { areas, readRecord, readRecords, renderIndex } from '../../scripts/decisions.js';

const decisionsDir = path.resolve(import.meta.dirname, '../../docs/decisions');

t.test('every record keeps the form', async (t) => {
  const { records, broken } = readRecords();
  t.same(broken, [], 'records that do not keep the form');
  t.ok(records.length > 200, `${records.length} records read`);
});

t.test('every record names one of the areas (else it is listed under Other)', async (t) => {
  const { records } = readRecords();
  const names = areas.map(([name]) => name).join(', ');
  const unplaced = records.filter((r) => r.area === 'Other').map((r) => r.file);
  t.same(unplaced, [], `give each an "- Area:" line naming one of: ${names}`);
});

t.test('a superseded record names one that exists and is current', async (t) => {
  const { records } = readRecords();
  const superseded = records.filter((r) => r.status.startsWith('superseded by'));
  t.ok(superseded.length >= 3, `${superseded.length} superseded records`);
  for (const r of superseded) {
    const target = /\(([a-z0-9-]+\.md)\)$/.exec(r.status)![1]!;
    t.ok(existsSync(path.join(decisionsDir, target)), `${r.file} → ${target}`);
    const replacement = records.find((other) => other.file === target);
    t.equal(replacement?.status, 'accepted', `${r.file} → ${target}, which is current`);
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

t.test('a superseded record may keep its header alone', async (t) => {
  const text = '# Old\n\n- Date: 2026-11-21\n- Status: superseded by [New](new.md)\n- Area: API\n';
  t.same(readRecord('old.md', text), {
    file: 'old.md',
    title: 'Old',
    date: '2026-11-21',
    status: 'superseded by [New](new.md)',
    area: 'API',
  });
});

t.test('a record without a known area still goes into the index, under Other, last', async (t) => {
  const record = (file: string, area: string) => {
    const text = `# ${file}\n\n- Date: 2026-11-23\n- Status: accepted\n${area}\n\n## Context\n\nC.\n\n## Decision\n\nD.\n\n## Consequences\n\nE.\n`;
    const read = readRecord(`${file}.md`, text);
    if ('problems' in read) throw new Error(read.problems.join('; '));
    return read;
  };
  const read = [record('known', '- Area: API'), record('old-area', '- Area: AS2 actors'), record('none', '')];
  t.same(
    read.map((r) => r.area),
    ['API', 'Other', 'Other'],
  );
  const index = await renderIndex(read);
  t.ok(index.indexOf('## API') < index.indexOf('## Other'), 'Other comes after the named areas');
  t.match(index, /## Other\n\n.*give each one of the areas above/);
  t.match(index, /- \[none\]\(none\.md\)/);
  t.notMatch(index, /## Runtime/, 'an area without records has no heading');
});
