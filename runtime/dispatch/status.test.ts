// Covers the status derivation table (spec 3.1, 3.2) row by row, with the combinations that decide between rows.
import t from 'tap';
import type { DeliveryState } from './delivery-states.js';
import { deriveMessage, statusRows } from './status.js';

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
