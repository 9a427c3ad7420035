// Covers planAcceptance for a message pier handles itself (`unrouted`, a certificate exchange message): no delivery whatever the routes say, status NotRouted, and its first history line says why; the same message without it is routed.
import t from 'tap';
import { planAcceptance, type PartyKind } from './accept-plan.js';
import type { AcceptItem } from './accept.js';

const kinds = new Map<string, Set<PartyKind>>([
  ['globex', new Set<PartyKind>(['partner'])],
  ['acme', new Set<PartyKind>(['organization'])],
]);
const routes = [
  {
    source_plugin: 'as2-in',
    from_party: 'globex',
    to_party: 'acme',
    document_type: '*',
    target_plugin: 'inbox',
  },
];
const item = (id: string, unrouted?: string): AcceptItem => ({
  source_type: 'as2-receiver',
  source_name: 'as2-in',
  message: {
    id,
    from: 'globex',
    to: 'acme',
    file_name: 'cem.xml',
    payload: { stage: 'unpacked', size_bytes: 10 },
    ...(unrouted ? { unrouted } : {}),
  },
});

t.test('an unrouted message gets no delivery and says why', async (t) => {
  const plan = planAcceptance(
    [
      item('00000000-0000-4000-8000-000000000001', 'Certificate exchange request r1 from globex: stored'),
      item('00000000-0000-4000-8000-000000000002'),
    ],
    kinds,
    routes,
  );
  t.match(plan.messages, [
    { id: '00000000-0000-4000-8000-000000000001', status: 'NotRouted', stage: 'settled', refusal: null },
    { id: '00000000-0000-4000-8000-000000000002', status: 'InProgress' },
  ]);
  t.same(plan.deliveries, [{ message_id: '00000000-0000-4000-8000-000000000002', target: 'inbox' }]);
  t.match(
    plan.lines.find((l) => l.message_id.endsWith('1') && l.ord === 1),
    {
      new_status: 'Received',
      text: 'Accepted from as2-receiver as2-in. Certificate exchange request r1 from globex: stored',
    },
  );
});
