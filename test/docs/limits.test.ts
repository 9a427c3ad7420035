// Covers docs/limits.md against the table of limits (limits/limits.ts): the page is exactly what
// `npm run limits` writes from it (a test fails when a limit changed and the page was not written
// anew), and every limit in the table is read by some product file, so none lingers unused.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { limitTable } from '../../limits/limits.js';
import { limitsFile, readersOf, renderLimits } from '../../scripts/limits-doc.js';

t.test('docs/limits.md is what the table makes (else run npm run limits)', async (t) => {
  t.equal(readFileSync(limitsFile, 'utf8'), await renderLimits());
});

t.test('every limit is read where it is used', async (t) => {
  const unread = [...readersOf()].filter(([, files]) => files.length === 0).map(([name]) => name);
  t.same(unread, [], 'limits no product file reads');
  t.equal(readersOf().size, Object.keys(limitTable).length);
});

t.test('the page lists every limit with its value and why', async (t) => {
  const page = readFileSync(limitsFile, 'utf8');
  t.match(page, "- **`instanceThreadStartMs`** = 1 min. How long an instance's second and later thread");
  t.match(page, '- **`claimRetryMs`** = 500 ms, 1 s, 2 s.');
  t.match(page, '- **`hstsMaxAgeSeconds`** = 365 days.');
  t.match(page, '- **`maxUploadBytes`** = 64 MiB.');
  for (const name of Object.keys(limitTable)) t.match(page, `- **\`${name}\`** = `, name);
});
