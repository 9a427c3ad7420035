// Covers the table of limits: the values the code reads are the table's, each entry says why in
// one line, and a name with a unit in it holds numbers (docs/limits.md lists them).
import t from 'tap';
import { limitAreas, limits, limitTable } from './limits.js';

t.test('the values read are the table’s, name for name', async (t) => {
  t.same(Object.keys(limits), Object.keys(limitTable));
  for (const [name, limit] of Object.entries(limitTable))
    t.same(limits[name as keyof typeof limits], limit.value, name);
  t.equal(limits.claimRetryMs.length, 3);
  t.equal(limits.streamSliceBytes, 256 * 1024);
});

t.test('each limit says why, in one line, and belongs to a listed part', async (t) => {
  for (const [name, limit] of Object.entries(limitTable)) {
    t.ok(limit.why.length > 10 && !limit.why.includes('\n'), `${name} says why in one line`);
    t.ok((limitAreas as readonly string[]).includes(limit.area), `${name}'s part is listed`);
    const values = typeof limit.value === 'number' ? [limit.value] : limit.value;
    t.ok(
      values.every((v) => Number.isSafeInteger(v) && v > 0),
      `${name} is a positive whole number`,
    );
  }
});

t.test('the table cannot be changed at run time by a reader', async (t) => {
  t.throws(() => {
    (limits as Record<string, unknown>).streamSliceBytes = 1;
  });
});
