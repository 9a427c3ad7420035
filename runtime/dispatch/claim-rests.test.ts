// Covers, on a real database, what acceptances do with the room a target's answered claim left
// (waiting-claims.ts, `rest`): the deliveries they store for it are claimed at once and handed
// to the target's next claim without a claim statement, never more than that claim asks for;
// its other targets are told of their work as before; and a stop of the target's instance
// gives what is held back to the queue.
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { globexToAcmeRoutes, migratedDatabase } from '../../test/helpers/database.js';
import { waitFor } from '../../test/helpers/wait.js';
import type { Orm } from '../../storage/db.js';
import type { InstanceRef } from '../supervisor/core-port.js';
import { Dispatcher } from './dispatcher.js';
import { inTx } from '../../flow/tx.js';

let orm: Orm;
t.before(async () => {
  ({ orm } = await migratedDatabase(t));
  await globexToAcmeRoutes(orm);
});

const node = 7;
const source: InstanceRef = { type: 'file-poller', name: 'in', settings: {} };
const out: InstanceRef = { type: 'file-writer', name: 'out', settings: {} };

/** A document as a source that unpacked it offers it: claimable as it is stored. */
const offered = (fileName: string) => ({
  id: randomUUID(),
  from: 'globex',
  to: 'acme',
  file_name: fileName,
  source_key: `key-${fileName}`,
  payload: { stage: 'unpacked' as const, size_bytes: 5, content: Buffer.from('hello').toString('base64') },
});

/** Each delivery to `out`: file name, state, and the claim statements run so far for it. */
async function outDeliveries(): Promise<string[]> {
  const rows = await inTx(orm, (tx) =>
    tx.all<{ file_name: string; state: string; claims: number }>(
      `select m.file_name, d.state, d.claims from delivery d join message m on m.id = d.message_id
        where d.target = 'out' order by m.file_name`,
    ),
  );
  return rows.map((r) => `${r.file_name} ${r.state} ${r.claims}`);
}

/** A dispatcher of this test's process; the targets it tells of work are pushed to `told`. */
function startDispatcher(t: Test, told: string[]): Dispatcher {
  const dispatcher = new Dispatcher({
    orm,
    node,
    now: () => new Date(),
    logger: pino({ level: 'silent' }),
    maxDispatches: 3,
    onWork: (targets) => told.push(...targets),
  });
  t.teardown(() => dispatcher.stop());
  return dispatcher;
}

/** Whether the promise has settled, and with what, after pending callbacks ran. */
async function state<T>(promise: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([
    promise,
    new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 50)),
  ]);
}

t.test('acceptances claim into the rest of an answered claim, for the next claim', async (t) => {
  const told: string[] = [];
  const dispatcher = startDispatcher(t, told);

  const first = dispatcher.claim(out, 4);
  t.equal(await state(first), 'pending', 'nothing queued: the claim waits');
  await dispatcher.accept(source, [offered('a.edi')]);
  t.same(
    (await first).map((d) => d.message.file_name),
    ['a.edi'],
    'the acceptance answers it with its delivery',
  );

  // Before out claims again, two more acceptances run.
  await dispatcher.accept(source, [offered('b.edi')]);
  await dispatcher.accept(source, [offered('c.edi'), offered('d.edi'), offered('e.edi')]);
  t.same(
    await outDeliveries(),
    [
      'a.edi delivering 1',
      'b.edi delivering 1',
      'c.edi delivering 1',
      'd.edi delivering 1',
      'e.edi queued 0',
    ],
    'they claimed as much as the answered claim left room for (3), the rest is queued',
  );
  t.same(
    told.filter((target) => target === 'out'),
    ['out'],
    'out is told of work once: for the delivery left queued',
  );
  t.ok(told.includes('archive'), 'the other target is told as before');

  const second = await dispatcher.claim(out, 2);
  t.same(
    second.map((d) => [d.message.file_name, d.claim, d.attempt]),
    [
      ['b.edi', 1, 1],
      ['c.edi', 1, 1],
    ],
    'the next claim gets what is held, up to its limit, claimed once',
  );
  const third = await dispatcher.claim(out, 4);
  t.same(
    third.map((d) => d.message.file_name),
    ['d.edi'],
    'the one after it the last held delivery, though it asked for more',
  );
  const fourth = await dispatcher.claim(out, 4);
  t.same(
    fourth.map((d) => d.message.file_name),
    ['e.edi'],
    'and the next the queued one, from the claim statement',
  );
  t.same(await outDeliveries(), [
    'a.edi delivering 1',
    'b.edi delivering 1',
    'c.edi delivering 1',
    'd.edi delivering 1',
    'e.edi delivering 1',
  ]);
});

t.test('a stop of the target gives back what is held for it', async (t) => {
  await inTx(orm, (tx) => tx.all('delete from message'));
  const dispatcher = startDispatcher(t, []);

  const first = dispatcher.claim(out, 4);
  await dispatcher.accept(source, [offered('f.edi')]);
  t.equal((await first).length, 1);
  await dispatcher.accept(source, [offered('g.edi')]);
  t.same(await outDeliveries(), ['f.edi delivering 1', 'g.edi delivering 1'], 'g.edi is held for out');

  dispatcher.cancelClaims(out);
  const rows = await waitFor(async () => {
    const now = await outDeliveries();
    return now.includes('g.edi queued 1') && now;
  }, 'g.edi given back');
  t.same(
    rows,
    ['f.edi delivering 1', 'g.edi queued 1'],
    'given back to the queue; f.edi stays with the instance',
  );
  const later = dispatcher.claim(out, 4);
  t.same(
    (await later).map((d) => [d.message.file_name, d.claim]),
    [['g.edi', 2]],
    'started again, the instance claims it from the database, under a new claim',
  );
});
