// Covers planAcceptance for a message pier handles itself (`unrouted`, a certificate exchange message): no delivery whatever the routes say, status NotRouted, and its first history line says why; the same message without it is routed; a document handed to its target already is stored held by that target (delivering: delivered only once its file is named), and a handed target no route names gets nothing.
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
  t.same(plan.deliveries, [
    { message_id: '00000000-0000-4000-8000-000000000002', target: 'inbox', state: 'queued', text: null },
  ]);
  t.match(
    plan.lines.find((l) => l.message_id.endsWith('1') && l.ord === 1),
    {
      new_status: 'Received',
      text: 'Accepted from as2-receiver as2-in. Certificate exchange request r1 from globex: stored',
    },
  );
});

t.test(
  'a handed document is held by its target at its acceptance, not delivered; a handed target no route names is left out',
  async (t) => {
    const handed = (id: string, targets: string[]): AcceptItem => {
      const base = item(id);
      return {
        ...base,
        message: {
          ...base.message,
          handed: targets.map((target) => ({ target, detail: `Writing ${id}.xml` })),
        },
      };
    };
    const plan = planAcceptance(
      [
        handed('00000000-0000-4000-8000-000000000003', ['inbox']),
        handed('00000000-0000-4000-8000-000000000004', ['old']),
      ],
      kinds,
      routes,
    );
    t.match(plan.messages, [
      { id: '00000000-0000-4000-8000-000000000003', status: 'InProgress', stage: 'dispatched' },
      { id: '00000000-0000-4000-8000-000000000004', status: 'InProgress', stage: 'dispatched' },
    ]);
    t.same(plan.deliveries, [
      {
        message_id: '00000000-0000-4000-8000-000000000003',
        target: 'inbox',
        state: 'delivering',
        text: 'Writing 00000000-0000-4000-8000-000000000003.xml',
      },
      { message_id: '00000000-0000-4000-8000-000000000004', target: 'inbox', state: 'queued', text: null },
    ]);
    t.match(
      plan.lines.filter((l) => l.message_id.endsWith('3')),
      [{ new_status: 'Received' }, { old_status: 'Received', new_status: 'InProgress' }],
    );
  },
);
