// Covers building an interchange from documents without envelopes: X12 envelopes from the parties' ids with counts and control numbers, sets grouped by functional id, EDIFACT UNB/UNH/UNT/UNZ with a UNA only for other separators; the built bytes pass pier's syntax check, and a build that would not is refused naming the segment and element.
import t from 'tap';
import { buildInterchange, numbersNeeded, type BuildSettings } from './build.js';
import { checkedBytes } from './gate.js';

const at = new Date('2026-11-25T09:30:00Z');
const x12: BuildSettings = {
  standard: 'x12',
  test: true,
  acknowledgement_requested: true,
  line_break: '\n',
  sender: { qualifier: 'ZZ', id: 'PIERBUYER' },
  receiver: { qualifier: '01', id: '999999999' },
  at,
};
const po = { type: '850', segments: [{ tag: 'BEG', elements: ['00', 'SA', 'PO-1', '', '20261125'] }] };
const invoice = { type: '810', segments: [{ tag: 'BIG', elements: ['20261125', 'INV-1'] }] };

t.test('X12: envelopes, groups by functional id, counts and control numbers', async (t) => {
  const sets = [po, invoice, po];
  t.same(numbersNeeded(x12, sets), { interchange: 1, group: 2, set: 3 });
  const bytes = await checkedBytes(buildInterchange(x12, sets, { interchange: 42, group: 7, set: 100 }));
  t.equal(
    bytes.toString('latin1'),
    [
      'ISA*00*          *00*          *ZZ*PIERBUYER      *01*999999999      *261125*0930*U*00401*000000042*1*T*>~',
      'GS*PO*PIERBUYER*999999999*20261125*0930*7*X*004010~',
      'ST*850*0100~',
      'BEG*00*SA*PO-1**20261125~',
      'SE*3*0100~',
      'ST*850*0101~',
      'BEG*00*SA*PO-1**20261125~',
      'SE*3*0101~',
      'GE*2*7~',
      'GS*IN*PIERBUYER*999999999*20261125*0930*8*X*004010~',
      'ST*810*0102~',
      'BIG*20261125*INV-1~',
      'SE*3*0102~',
      'GE*1*8~',
      'IEA*2*000000042~',
      '',
    ].join('\n'),
  );
});

t.test('EDIFACT: UNB from the ids, a UNA only for other separators', async (t) => {
  const settings: BuildSettings = {
    ...x12,
    standard: 'edifact',
    test: false,
    acknowledgement_requested: false,
    line_break: '',
  };
  const orders = {
    type: ['ORDERS', 'D', '96A', 'UN'],
    segments: [{ tag: 'BGM', elements: [['220'], 'PO-1?+', '9'] }],
  };
  const bytes = await checkedBytes(
    buildInterchange(settings, [orders], { interchange: 5, group: 0, set: 1 }),
  );
  t.equal(
    bytes.toString('latin1'),
    "UNB+UNOC:3+PIERBUYER:ZZ+999999999:01+261125:0930+5'UNH+1+ORDERS:D:96A:UN'BGM+220+PO-1???++9'UNT+3+1'UNZ+1+5'",
  );
  const custom = buildInterchange({ ...settings, delimiters: { segment: '~' } }, [orders], {
    interchange: 5,
    group: 0,
    set: 1,
  });
  t.equal(custom.una, 'UNA:+.? ~');
});

t.test(
  'a build that would not pass the syntax check is refused, naming the segment and element',
  async (t) => {
    const bad = { type: '850', segments: [{ tag: 'BEG', elements: ['00', 'SA', 'PO\u00011'] }] };
    await t.rejects(checkedBytes(buildInterchange(x12, [bad], { interchange: 1, group: 1, set: 1 })), {
      message: 'set 850 0001, segment 2 (BEG), element 3: syntax error code 6 in "PO\\u00011"',
      where: { segment: 2, tag: 'BEG', element: 3 },
    });
    const star = { type: '850', segments: [{ tag: 'BEG', elements: ['00', 'SA', 'PO*1'] }] };
    await t.rejects(checkedBytes(buildInterchange(x12, [star], { interchange: 1, group: 1, set: 1 })), {
      message:
        'segment 4 (BEG), element 3: the value holds the separator "*", which X12 cannot carry in data',
    });
    t.throws(
      () => buildInterchange(x12, [{ type: '999x', segments: [] }], { interchange: 1, group: 1, set: 1 }),
      {
        message: /^set 999x: give its functional_id \(GS01\)/,
      },
    );
    t.throws(
      () =>
        buildInterchange({ ...x12, sender: { qualifier: 'ZZ', id: 'A-VERY-LONG-SENDER-ID' } }, [po], {
          interchange: 1,
          group: 1,
          set: 1,
        }),
      {
        message:
          'the sender id "A-VERY-LONG-SENDER-ID" is longer than 15 characters, the width of its ISA field',
      },
    );
  },
);
