// Covers control numbers taken inside the acceptance's transaction: an acceptance that fails after the numbers were taken (its build, its store, its insert) leaves the counters as they were and stores nothing; two processes accepting 100 built messages each for one partner at once (both connected first, then started together) get 200 distinct numbers without a gap, each stored message carrying its own; a process killed with -9 inside the transaction loses no number and leaves no message.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { runNode } from '../../test/fixtures/control-numbers/run-node.js';
import { migratedDatabase, sql } from '../../test/helpers/database.js';
import { inTx } from '../tx.js';
import { acceptNumbered } from './accept-numbered.js';
import type { AcceptItem } from './accept.js';

const { orm, url } = await migratedDatabase(t);
await sql(url, `insert into organization (name) values ('acme')`);

async function partner(name: string): Promise<number> {
  const [row] = await sql<{ id: number }>(url, `insert into partner (name) values ($1) returning id`, [name]);
  return row!.id;
}

const counters = async (id: number) =>
  (
    await sql<{ level: string; last_value: string }>(
      url,
      `select level, last_value from edi_control_number where partner_id = $1 order by level`,
      [id],
    )
  ).map((c) => [c.level, Number(c.last_value)]);
const messages = async (to: string) =>
  (await sql<{ n: number }>(url, 'select count(*)::int as n from message where to_party = $1', [to]))[0]!.n;

const item = (to: string, id = randomUUID()): AcceptItem => ({
  source_type: 'api',
  source_name: 'api',
  target_hint: 'out',
  message: {
    id,
    from: 'acme',
    to,
    file_name: 'x.edi',
    payload: { stage: 'unpacked', size_bytes: 5, content: Buffer.from('hello').toString('base64') },
  },
});
const numbering = (partnerId: number) => ({
  partnerId,
  counts: { interchange: 1, group: 1, set: 2 },
  max: 999_999_999,
});

t.test('a failed acceptance leaves the counters unchanged and stores nothing', async (t) => {
  const id = await partner('globex');
  const first = await inTx(orm, (tx) =>
    acceptNumbered(tx, new Date(), 1, numbering(id), async () => item('globex')),
  );
  t.same(first.block, { group: 1, interchange: 1, set: 1 });
  const before = await counters(id);
  t.same(before, [
    ['group', 1],
    ['interchange', 1],
    ['set', 2],
  ]);
  // The build (or its store) fails after the numbers were taken.
  await t.rejects(
    inTx(orm, (tx) =>
      acceptNumbered(tx, new Date(), 1, numbering(id), async () => {
        throw new Error('the payload store is down');
      }),
    ),
    { message: 'the payload store is down' },
  );
  // The acceptance's own insert fails: a message id stored already.
  const taken = first.outcomes[0]!.message_id as ReturnType<typeof randomUUID>;
  await t.rejects(
    inTx(orm, (tx) => acceptNumbered(tx, new Date(), 1, numbering(id), async () => item('globex', taken))),
    { code: '23505' },
  );
  t.same(await counters(id), before, 'no number was taken by the failures');
  t.equal(await messages('globex'), 1, 'only the first message is stored');
  const next = await inTx(orm, (tx) =>
    acceptNumbered(tx, new Date(), 1, numbering(id), async () => item('globex')),
  );
  t.same(next.block, { group: 2, interchange: 2, set: 3 }, 'the next build goes on without a gap');
});

const run = (args: string[]) => runNode('accepting-node.ts', url, args);

t.test('two processes accepting 100 built messages each get 200 numbers without a gap', async (t) => {
  const id = await partner('initech');
  const nodes = [run([String(id), 'initech', '100']), run([String(id), 'initech', '100'])];
  // Both connected before either accepts: they race from the first message, not only if their
  // start-ups (seconds each on a busy machine) happened to end together.
  t.same(await Promise.all(nodes.map((n) => n.firstLine)), ['ready', 'ready']);
  for (const n of nodes) n.go();
  const [a, b] = (await Promise.all(nodes.map((n) => n.out))).map(
    (text) => JSON.parse(text.split('\n')[1]!) as number[],
  );
  const numbers = [...a!, ...b!].sort((x, y) => x - y);
  t.same(
    numbers,
    Array.from({ length: 200 }, (_, i) => i + 1),
    '1 to 200, each once',
  );
  t.ok(
    Math.min(...a!) < Math.max(...b!) && Math.min(...b!) < Math.max(...a!),
    'the two processes took numbers in turns (they raced for the counters)',
  );
  t.same(await counters(id), [
    ['group', 200],
    ['interchange', 200],
    ['set', 400],
  ]);
  const stored = await sql<{ file_name: string; content: Buffer }>(
    url,
    `select m.file_name, p.content from message m join payload p on p.message_id = m.id where m.to_party = 'initech'`,
  );
  t.equal(stored.length, 200, 'a message for every number');
  t.ok(
    stored.every((s) => s.content.toString() === `interchange ${s.file_name.replace('.edi', '')}`),
    'each stored message carries the number it was accepted with',
  );
});

t.test('a process killed with -9 inside the acceptance loses no number', async (t) => {
  const id = await partner('umbrella');
  await inTx(orm, (tx) => acceptNumbered(tx, new Date(), 1, numbering(id), async () => item('umbrella')));
  const held = run([String(id), 'umbrella', '0', 'hold']);
  t.same(JSON.parse(await held.firstLine), { group: 2, interchange: 2, set: 3 }, 'the held one took 2');
  held.kill();
  await held.out;
  const next = await inTx(orm, (tx) =>
    acceptNumbered(tx, new Date(), 1, numbering(id), async () => item('umbrella')),
  );
  t.same(next.block, { group: 2, interchange: 2, set: 3 }, 'the numbers came back: the next build takes 2');
  t.equal(await messages('umbrella'), 2, 'the killed acceptance stored nothing');
});
