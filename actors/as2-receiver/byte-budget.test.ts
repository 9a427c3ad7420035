// Covers the receiver's budget for large messages opened at once (byte-budget.ts): messages that fit go at once, the next waits until enough is given back and then goes in arrival order, and one message larger than the whole budget is opened alone rather than never.
import t from 'tap';
import { ByteBudget } from './byte-budget.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

t.test('messages wait their turn once the budget is used', async (t) => {
  const budget = new ByteBudget(100);
  const order: string[] = [];
  const first = await budget.take(60);
  const second = budget.take(60).then((release) => (order.push('second'), release));
  const third = budget.take(30).then((release) => (order.push('third'), release));
  await tick();
  t.same(order, [], 'the second does not fit, and the third waits behind it');
  t.equal(budget.waiting, 2);
  first();
  const releaseSecond = await second;
  const releaseThird = await third;
  t.same(order, ['second', 'third'], 'both go in arrival order once the first is done');
  releaseSecond();
  releaseThird();
  releaseThird();
  t.equal(budget.waiting, 0);
  const again = await budget.take(100);
  again();
  t.pass('a release counted once: the whole budget is free again');
});

t.test('a message larger than the budget goes alone', async (t) => {
  const budget = new ByteBudget(100);
  const huge = await budget.take(500);
  let small = false;
  const next = budget.take(1).then((release) => ((small = true), release));
  await tick();
  t.notOk(small, 'nothing beside the oversized one');
  huge();
  (await next)();
  t.ok(small, 'the next goes once it is done');
});
