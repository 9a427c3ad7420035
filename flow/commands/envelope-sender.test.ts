// Covers planAcceptance's rule for an envelope's sender, case by case: a partner the source named speaks for itself
// and the partners on its speaks_for list; an interchange naming anyone else (another partner, one of our
// organizations) keeps the transport's parties and is refused with the reason; a source naming no partner, or an
// unregistered id, leaves the envelope's reading as it was.
import t from 'tap';
import { directoryOf, planAcceptance, type PartyKind } from './accept-plan.js';
import type { AcceptItem } from './accept.js';
import type { EdiRecord } from '../../edi/record.js';

const kinds = new Map<string, Set<PartyKind>>([
  ['hub', new Set<PartyKind>(['partner'])],
  ['victim', new Set<PartyKind>(['partner'])],
  ['member', new Set<PartyKind>(['partner'])],
  ['acme', new Set<PartyKind>(['organization'])],
  ['other-org', new Set<PartyKind>(['organization'])],
]);
const directory = directoryOf(
  [
    { name: 'hub', kind: 'partner', qualifier: 'ZZ', id: 'HUB' },
    { name: 'victim', kind: 'partner', qualifier: 'ZZ', id: 'VICTIM' },
    { name: 'member', kind: 'partner', qualifier: '', id: 'MEMBER' },
    { name: 'acme', kind: 'organization', qualifier: 'ZZ', id: 'ACME' },
    { name: 'other-org', kind: 'organization', qualifier: 'ZZ', id: 'OTHER' },
  ],
  [{ name: 'hub', speaks_for: ['member'] }],
);
const routes = [
  { source_plugin: 'in', from_party: '*', to_party: 'acme', document_type: '*', target_plugin: 'inbox' },
];

const edi = (sender: string, receiver = 'ACME'): EdiRecord => ({
  standard: 'x12',
  version: '00401',
  sender: { qualifier: 'ZZ', id: sender },
  receiver: { qualifier: 'ZZ', id: receiver },
  interchange_control: '000000001',
  group_controls: ['1'],
  document_types: ['850'],
});
const item = (from: string, envelope: EdiRecord): AcceptItem => ({
  source_type: 'as2-receiver',
  source_name: 'in',
  message: {
    id: '00000000-0000-4000-8000-000000000001',
    from,
    to: 'acme',
    file_name: 'po.edi',
    payload: { stage: 'unpacked', size_bytes: 10 },
    edi: envelope,
  },
});
const planned = (from: string, envelope: EdiRecord) => {
  const plan = planAcceptance([item(from, envelope)], kinds, routes, directory);
  const m = plan.messages[0]!;
  return {
    from: m.from_party,
    to: m.to_party,
    status: m.status,
    refusal: m.refusal,
    mismatch: m.sender_mismatch,
    deliveries: plan.deliveries.length,
  };
};

t.test('a partner speaks for itself', async (t) => {
  t.match(planned('hub', edi('HUB')), { from: 'hub', refusal: null, mismatch: null, deliveries: 1 });
});

t.test('a partner on the speaks_for list is taken from the envelope', async (t) => {
  t.match(planned('hub', edi('MEMBER')), { from: 'member', refusal: null, mismatch: null, deliveries: 1 });
});

t.test('another partner is refused, the message staying the sender’s', async (t) => {
  const reason =
    'its X12 envelope names sender ZZ:VICTIM, partner victim, which partner hub may not send for (not on its speaks_for list)';
  t.same(planned('hub', edi('VICTIM')), {
    from: 'hub',
    to: 'acme',
    status: 'Refused',
    refusal: `Refused: ${reason}`,
    mismatch: reason,
    deliveries: 0,
  });
  t.match(planned('member', edi('HUB')), { from: 'member', status: 'Refused' }, 'the list is one-way');
});

t.test('one of our organizations as the sender is refused: no partner sends as us', async (t) => {
  t.match(planned('victim', edi('OTHER', 'VICTIM')), {
    from: 'victim',
    to: 'acme',
    status: 'Refused',
    mismatch: /names sender ZZ:OTHER, organization other-org/,
  });
});

t.test('a source naming no partner, or an unregistered id, leaves the reading as it was', async (t) => {
  t.match(planned('nobody-known', edi('VICTIM')), { from: 'victim', refusal: null, deliveries: 1 });
  t.match(planned('acme', edi('VICTIM')), { from: 'victim', mismatch: null }, "an organization's own source");
  t.match(planned('hub', edi('UNREGISTERED')), { from: 'hub', refusal: null, deliveries: 1 });
});
