// Covers the sweep that takes back handed deliveries a live process's writer lost (sweeps.ts, unnamedHanded): one this node still holds a minute after its acceptance is queued again with the reason in its history and its message still InProgress, and the target is announced; one younger, one another node holds, one claimed from the queue (however long) and one recorded delivered are left alone; a second sweep finds nothing.
import t from 'tap';
import { migratedDatabase, offeredFile, sql } from '../../test/helpers/database.js';
import { FlowConnections } from '../../storage/flow-connections.js';
import { acceptAtOnce } from './accept.js';
import { claimBatch } from './claim-deliveries.js';
import { FlowConfig } from './flow-config.js';
import { unnamedHanded } from './sweeps.js';
import { direct, inTx } from '../tx.js';
import { resultsAtOnce } from './record-results.js';

const node = 1;
const otherNode = 2;
const afterMs = 60_000;
const acceptedAt = new Date('2026-06-01T08:00:00.000Z');
const seconds = (n: number) => new Date(acceptedAt.getTime() + n * 1000);

const db = await migratedDatabase(t);
await inTx(db.orm, async (tx) => {
  await tx.all(`insert into organization (name) values ('acme')`);
  await tx.all(`insert into partner (name) values ('globex')`);
  await tx.all(
    `insert into route (name, source_plugin, from_party, to_party, target_plugin)
     values ('to-out', 'in', 'globex', 'acme', 'out')`,
  );
});
const flow = new FlowConnections(db.orm, 2);
t.teardown(() => flow.close());
const config = new FlowConfig();

/** A message accepted by `by` at `at`, its document handed to `out` before (held by `by`), or queued. */
async function accept(name: string, by: number, at: Date, handed: boolean) {
  const item = offeredFile(name, 'unpacked');
  if (handed) item.message.handed = [{ target: 'out', detail: `Writing ${name}` }];
  const accepted = await acceptAtOnce(flow, at, by, [item], config);
  const [delivery] = await sql<{ id: string }>(
    db.url,
    'select id::text from delivery where message_id = $1',
    [item.message.id],
  );
  return {
    messageId: item.message.id,
    deliveryId: Number(delivery!.id),
    handed: accepted.outcomes[0]!.handed,
  };
}

const state = async (deliveryId: number) =>
  (
    await sql<{ state: string; claimed_by: number | null; last_error: string; status: string }>(
      db.url,
      `select d.state, d.claimed_by, d.last_error, m.status from delivery d join message m on m.id = d.message_id
        where d.id = $1`,
      [deliveryId],
    )
  )[0];

t.test('a handed delivery held a minute after its acceptance is queued again; the others stay', async (t) => {
  const lost = await accept('lost.edi', node, acceptedAt, true);
  t.same(
    lost.handed?.map((h) => h.target),
    ['out'],
    'the acceptance stored the handed delivery as held by its target',
  );
  const young = await accept('young.edi', node, seconds(30), true);
  const others = await accept('others.edi', otherNode, acceptedAt, true);
  const named = await accept('named.edi', node, acceptedAt, true);
  await resultsAtOnce(direct(flow), seconds(1), [
    {
      target: 'out',
      delivery_id: named.deliveryId,
      claim: 1,
      outcome: { ok: true, detail: 'Written to named.edi' },
      policy: { max_attempts: 3, retry_interval: 0, retry_backoff: 1, retry_max_interval: 0 },
    },
  ]);
  const queued = await accept('queued.edi', node, acceptedAt, false);
  const claimed = await claimBatch(direct(flow), seconds(1), node, 'out', 10);
  t.same(
    claimed.deliveries.map((d) => d.delivery_id),
    [queued.deliveryId],
    'the queued delivery claimed by this node from the queue',
  );

  t.same(
    await inTx(flow, (tx) => unnamedHanded(tx, seconds(59.999), node, afterMs)),
    [],
    'nothing taken back before the minute is over',
  );
  t.same(
    await inTx(flow, (tx) => unnamedHanded(tx, seconds(60), node, afterMs)),
    ['out'],
    'its target announced',
  );
  t.match(
    await state(lost.deliveryId),
    {
      state: 'queued',
      last_error: 'its file handed to the target was not named within 60 s of the acceptance',
      status: 'InProgress',
    },
    'the lost one queued again, its message still in progress',
  );
  const [line] = await sql<{ text: string; old_state: string; new_state: string }>(
    db.url,
    `select text, old_state, new_state from message_history where delivery_id = $1 order by id desc limit 1`,
    [lost.deliveryId],
  );
  t.same(
    line,
    {
      text: 'Taken back: its file handed to the target was not named within 60 s of the acceptance',
      old_state: 'delivering',
      new_state: 'queued',
    },
    'its history says why',
  );
  t.match(
    await state(young.deliveryId),
    { state: 'delivering', claimed_by: node },
    'a younger one stays held',
  );
  t.match(
    await state(others.deliveryId),
    { state: 'delivering', claimed_by: otherNode },
    "another node's stays held (its own sweep, or the dead-claims sweep, takes it)",
  );
  t.match(await state(named.deliveryId), { state: 'delivered' }, 'a named one stays delivered');
  t.match(
    await state(queued.deliveryId),
    { state: 'delivering', claimed_by: node },
    'a delivery claimed from the queue stays with its claim, however long it takes',
  );
  t.same(
    await inTx(flow, (tx) => unnamedHanded(tx, seconds(3600), node, afterMs)),
    ['out'],
    'the younger one is taken back once its own minute is over',
  );
  t.same(
    await inTx(flow, (tx) => unnamedHanded(tx, seconds(3600), node, afterMs)),
    [],
    'then nothing is left',
  );
});
