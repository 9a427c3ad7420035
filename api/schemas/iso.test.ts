// Covers how the API writes dates (iso in common.ts): PostgreSQL's UTC text and Date objects come out exactly as Date#toISOString writes them, with every fraction length PostgreSQL gives; other text still goes through Date.
import t from 'tap';
import { iso } from './common.js';

// Rows read past the ORM carry timestamps as text; the type says Date, as callers see it.
const asRead = (text: string) => text as unknown as Date;

t.test(
  'PostgreSQL text in a UTC session: the same string Date would give, for every fraction length',
  async (t) => {
    const cases = [
      '2026-11-24 03:53:40+00',
      '2026-11-24 03:53:40.1+00',
      '2026-11-24 03:53:40.12+00',
      '2026-11-24 03:53:40.123+00',
      '2026-11-24 03:53:40.1234+00',
      '2026-11-24 03:53:40.999999+00',
      '1999-12-31 23:59:59.000001+00',
      '2024-02-29 00:00:00.5+00',
    ];
    for (const text of cases) t.equal(iso(asRead(text)), new Date(text).toISOString(), text);
    t.equal(iso(asRead('2026-11-24 03:53:40.123456+00')), '2026-11-24T03:53:40.123Z', 'microseconds cut');
  },
);

t.test('anything else goes through Date', async (t) => {
  t.equal(iso(new Date('2026-11-24T03:53:40.123Z')), '2026-11-24T03:53:40.123Z', 'a Date');
  t.equal(iso(asRead('2026-11-24 04:53:40.5+01')), '2026-11-24T03:53:40.500Z', 'another offset');
  t.equal(iso(asRead('2026-11-24T03:53:40Z')), '2026-11-24T03:53:40.000Z', 'ISO text');
  t.equal(iso(null), null);
  t.equal(iso(undefined), null);
});
