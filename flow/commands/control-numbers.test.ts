// Covers control numbers across nodes: two processes, each with its own pool, connected first and then started together, take 1,000 interchanges' numbers each for one partner at once (the issue's figure) and get 2,000 distinct numbers from 1 to 2,000, taken in turns, with the group and set counters in step; a process killed with -9 inside its transaction gives its number back, so the next one follows without a gap; a counter past its field's size is refused.
import t from 'tap';
import { runNode } from '../../test/fixtures/control-numbers/run-node.js';
import { migratedDatabase, sql } from '../../test/helpers/database.js';
import { inTx } from '../tx.js';
import { ControlNumbersExhausted, takeControlNumbers } from './control-numbers.js';

const { orm, url } = await migratedDatabase(t);

async function partner(name: string): Promise<number> {
  const [row] = await sql<{ id: number }>(
    url,
    `insert into partner (name, display_name, interchange_ids, x12_acknowledgement, edifact_acknowledgement,
                          acknowledgement_due_hours, speaks_for, created_at, updated_at)
     values ($1, '', '[]', 'none', 'none', 0, '[]', now(), now()) returning id`,
    [name],
  );
  return row!.id;
}

const run = (args: string[]) => runNode('node.ts', url, args);

t.test('two nodes taking 1,000 each get 2,000 distinct numbers without gaps', async (t) => {
  const id = await partner('globex');
  const each = 1000;
  const all = 2 * each;
  const nodes = [run([String(id), String(each)]), run([String(id), String(each)])];
  // Both connected before either takes a number: they race from the first one, not only if their
  // start-ups (seconds each on a busy machine) happened to end together.
  t.same(await Promise.all(nodes.map((n) => n.firstLine)), ['ready', 'ready']);
  for (const n of nodes) n.go();
  const [a, b] = (await Promise.all(nodes.map((n) => n.out))).map(
    (text) => JSON.parse(text.split('\n')[1]!) as number[],
  );
  const numbers = [...a!, ...b!].sort((x, y) => x - y);
  t.equal(numbers.length, all);
  t.equal(new Set(numbers).size, all, 'distinct');
  t.same(
    numbers,
    Array.from({ length: all }, (_, i) => i + 1),
    `1 to ${all} without a gap`,
  );
  t.ok(
    Math.min(...a!) < Math.max(...b!) && Math.min(...b!) < Math.max(...a!),
    'the two nodes took numbers in turns (they raced for the counters)',
  );
  const counters = await sql<{ direction: string; level: string; last_value: string }>(
    url,
    'select direction, level, last_value from edi_control_number where partner_id = $1 order by direction, level',
    [id],
  );
  t.same(
    counters.map((c) => [c.direction, c.level, Number(c.last_value)]),
    [
      ['outbound', 'group', all],
      ['outbound', 'interchange', all],
      ['outbound', 'set', 2 * all],
    ],
  );
});

t.test('a node killed with -9 inside its transaction loses no number', async (t) => {
  const id = await partner('initech');
  await inTx(orm, (tx) => takeControlNumbers(tx, id, 'outbound', { interchange: 5 }, 999_999_999));
  const held = run([String(id), '0', 'hold']);
  t.same(JSON.parse(await held.firstLine), { interchange: 6 }, 'the held transaction took 6');
  held.kill();
  await held.out;
  const next = await inTx(orm, (tx) =>
    takeControlNumbers(tx, id, 'outbound', { interchange: 1 }, 999_999_999),
  );
  t.same(next, { interchange: 6 }, 'the number came back: the next one is 6 again');
});

t.test('a rolled-back build gives its numbers back; a counter past its field is refused', async (t) => {
  const id = await partner('umbrella');
  await t.rejects(
    inTx(orm, async (tx) => {
      await takeControlNumbers(tx, id, 'outbound', { interchange: 1, set: 3 }, 999_999_999);
      throw new Error('the build failed its syntax check');
    }),
  );
  t.same(
    await inTx(orm, (tx) => takeControlNumbers(tx, id, 'outbound', { interchange: 1, set: 3 }, 999_999_999)),
    { interchange: 1, set: 1 },
  );
  await sql(
    url,
    `update edi_control_number set last_value = 999999999 where partner_id = $1 and level = 'interchange'`,
    [id],
  );
  await t.rejects(
    inTx(orm, (tx) => takeControlNumbers(tx, id, 'outbound', { interchange: 1 }, 999_999_999)),
    new ControlNumbersExhausted('interchange', 999_999_999),
  );
});
