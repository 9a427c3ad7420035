// Covers the status derivation table (docs/api/lifecycles.md#message-status, docs/api/lifecycles.md#message-stage) row by row, with the combinations that
// decide between rows; and its SQL rendering against the JavaScript one on a real PostgreSQL.
import t from 'tap';
import { sql } from '../../test/helpers/database.js';
import { deliveryStates, type DeliveryState } from './delivery-states.js';
import { deriveMessage, statusRows, statusSql } from './status.js';

const cases: [string, { accepted?: boolean; refused?: boolean; states: DeliveryState[] }, string, string][] =
  [
    ['not dispatched yet', { accepted: true, states: [] }, 'Received', 'accepted'],
    ['refused by its source', { refused: true, states: [] }, 'Refused', 'settled'],
    ['no route matched', { states: [] }, 'NotRouted', 'settled'],
    ['one queued', { states: ['queued'] }, 'InProgress', 'dispatched'],
    ['one delivering', { states: ['delivering'] }, 'InProgress', 'dispatched'],
    ['one retrying', { states: ['retrying'] }, 'Retrying', 'dispatched'],
    ['retrying wins over delivering', { states: ['delivering', 'retrying'] }, 'Retrying', 'dispatched'],
    ['awaiting a receipt', { states: ['awaiting_ack'] }, 'AwaitingReceipt', 'dispatched'],
    [
      'still delivering wins over awaiting',
      { states: ['awaiting_ack', 'queued'] },
      'InProgress',
      'dispatched',
    ],
    ['unfinished work wins over a failure', { states: ['failed', 'queued'] }, 'InProgress', 'dispatched'],
    ['all finished, one failed', { states: ['delivered', 'failed'] }, 'Error', 'settled'],
    ['failed wins over stalled', { states: ['stalled', 'failed'] }, 'Error', 'settled'],
    ['all finished, one stalled', { states: ['delivered', 'stalled'] }, 'Stalled', 'settled'],
    ['all delivered', { states: ['delivered', 'delivered'] }, 'Delivered', 'settled'],
    ['refused but routed by a redispatch', { refused: true, states: ['delivered'] }, 'Delivered', 'settled'],
  ];

for (const [name, facts, status, stage] of cases) {
  t.test(name, async (t) => {
    t.same(deriveMessage({ accepted: false, refused: false, ...facts }), { status, stage });
  });
}

t.test('every row of the table is reached by a case', async (t) => {
  const reached = new Set(cases.map(([, , status]) => status));
  for (const row of statusRows) t.ok(reached.has(row.status), row.when);
});

/** Every multiset of exactly `size` delivery states, from `from` on in the table's order. */
function multisets(size: number, from = 0): DeliveryState[][] {
  if (size === 0) return [[]];
  return deliveryStates
    .slice(from)
    .flatMap((state, i) => multisets(size - 1, from + i).map((rest) => [state, ...rest]));
}

t.test(
  'the SQL rendering derives what deriveMessage derives, for every case up to three deliveries',
  async (t) => {
    const facts = [0, 1, 2, 3]
      .flatMap((size) => multisets(size))
      .flatMap((states) =>
        [false, true].flatMap((accepted) => [false, true].map((refused) => ({ accepted, refused, states }))),
      );
    t.equal(
      facts.length,
      120 * 4,
      'every multiset of zero to three of the seven states, accepted or not, refused or not',
    );
    const { status, stage } = statusSql({ accepted: 'f.accepted', refused: 'f.refused', states: 'f.states' });
    const url = process.env.PIER_TEST_ADMIN_URL ?? process.env.DATABASE_URL!;
    const rows = await sql<{ status: string; stage: string }>(
      url,
      `select ${status} as status, ${stage} as stage
       from jsonb_to_recordset($1::jsonb) as f(n int, accepted boolean, refused boolean, states text[])
      order by n`,
      [JSON.stringify(facts.map((f, n) => ({ n, ...f, states: `{${f.states.join(',')}}` })))],
    );
    const mismatches = facts.flatMap((f, i) => {
      const expected = deriveMessage(f);
      const got = rows[i]!;
      return got.status === expected.status && got.stage === expected.stage ? [] : [{ ...f, expected, got }];
    });
    t.same(mismatches, [], 'no case derives differently');
  },
);
