// Covers the source's side of a hand-off over a real MessageChannel: a target that takes the document is named after an
// acceptance that stored its delivery, told to drop it after a duplicate, and after a failed acceptance (which may have
// committed) to drop it once the database says the delivery was not stored, and when no acceptance was offered (the
// receipt could not be made) to drop it at once; a target that stops
// while the document is in its hands (its channel closed between the hand and the naming) has its delivery queued again
// with the reason, and a target gone before the hand gets nothing (the acceptance queues its delivery).
import { MessageChannel } from 'node:worker_threads';
import t, { type Test } from 'tap';
import { serveHandoff, type HandoffHandler } from '../../protocol/handoff-protocol.js';
import { HandoffGiver } from './handoff-giver.js';

const messageId = '00000000-0000-4000-8000-000000000001';
const payload = { stage: 'unpacked' as const, size_bytes: 3, content: 'YWJj' };

function setUp(t: Test) {
  const asked: string[] = [];
  const requeued: string[] = [];
  const handler: HandoffHandler = {
    hand: async (r) => (
      asked.push(`hand ${r.message.from}/${r.message.file_name}`),
      { taken: true, detail: 'Written to x' }
    ),
    link: async (r) => (asked.push(`link ${r.delivery_id}`), { ok: true }),
    drop: async (r) => (asked.push(r.uncertain ? 'drop uncertain' : 'drop'), { dropped: true }),
  };
  const { port1, port2 } = new MessageChannel();
  serveHandoff(port2, handler);
  const giver = new HandoffGiver(
    {
      plan: () => ({ targets: ['inbox', 'elsewhere'], from: 'alice', to: 'bob' }),
      requeueHanded: async (id, target, reason) => (requeued.push(`${id} ${target}: ${reason}`), true),
    },
    () => {},
  );
  giver.connect('inbox', port1);
  t.teardown(() => {
    giver.close();
    port2.close();
  });
  const offered = { id: messageId, file_name: 'order.edi' } as const;
  return { asked, requeued, giver, port2, offered };
}

const acceptance = (over: object = {}) => ({
  message_id: messageId,
  duplicate: false,
  status: 'Delivered',
  queued: 0,
  handed: [{ target: 'inbox', delivery_id: 7 }],
  ...over,
});

t.test('taken, accepted, named', async (t) => {
  const { asked, requeued, giver, offered } = setUp(t);
  const way = giver.wayOf({ ...offered, from: 'alice', to: 'bob', payload } as never)!;
  t.same(way.targets, ['inbox', 'elsewhere']);
  const handing = await giver.give(way, offered, payload);
  t.same(
    handing.offered,
    [{ target: 'inbox', detail: 'Written to x' }],
    'only the target that is here takes it',
  );
  await giver.settle(handing, acceptance());
  t.same(asked, ['hand alice/order.edi', 'link 7']);
  t.same(requeued, []);
});

t.test('a duplicate, a failed acceptance or none drops the document', async (t) => {
  const { asked, giver, offered } = setUp(t);
  const way = { targets: ['inbox'], from: 'alice', to: 'bob' };
  await giver.settle(await giver.give(way, offered, payload), acceptance({ duplicate: true }));
  await giver.settle(await giver.give(way, offered, payload), undefined);
  await giver.settle(await giver.give(way, offered, payload), null);
  t.same(
    asked,
    [
      'hand alice/order.edi',
      'drop',
      'hand alice/order.edi',
      'drop uncertain',
      'hand alice/order.edi',
      'drop',
    ],
    'a failed acceptance may have committed: the target asks the database; none offered, it need not',
  );
});

t.test('the target stops while the document is in its hands: the delivery is queued again', async (t) => {
  const { asked, requeued, giver, port2, offered } = setUp(t);
  const handing = await giver.give({ targets: ['inbox'], from: 'alice', to: 'bob' }, offered, payload);
  port2.close();
  await new Promise((resolve) => setTimeout(resolve, 20));
  await giver.settle(handing, acceptance());
  t.same(asked, ['hand alice/order.edi']);
  t.equal(requeued.length, 1);
  t.match(
    requeued[0],
    /^00000000-0000-4000-8000-000000000001 inbox: the target stopped before it named the file/,
  );
  const next = await giver.give({ targets: ['inbox'], from: 'alice', to: 'bob' }, offered, payload);
  t.same(next.offered, undefined, 'a target that is gone takes nothing: its delivery is queued');
  t.equal(giver.wayOf({ ...offered, from: 'alice', to: 'bob', payload } as never), null);
});
