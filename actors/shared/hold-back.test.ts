// Covers how a source waits for its targets (hold-back.ts): not at all within the limit, one pause per halving above it, never once halted.
import t from 'tap';
import { HoldBack } from './hold-back.js';

t.test('within the limit a source goes on at once', async (t) => {
  const hold = new HoldBack(64, 1_000);
  hold.tell(64);
  t.equal(hold.behind, false);
  const started = Date.now();
  await hold.wait();
  t.ok(Date.now() - started < 500, 'no pause');
});

t.test('above it, each pause halves the count until it is within the limit', async (t) => {
  const hold = new HoldBack(64, 20);
  hold.tell(300); // 300 → 150 → 75 → 37: three pauses
  t.equal(hold.behind, true);
  const started = Date.now();
  await hold.wait();
  const waited = Date.now() - started;
  t.ok(waited >= 55, `three pauses of 20 ms: waited ${waited} ms`);
  t.equal(hold.behind, false);
  hold.tell(65);
  t.equal(hold.behind, true, 'the next acceptance says where the targets are');
});

t.test('a source that stops waits no longer', async (t) => {
  // 1,000,000 halves to 1 in 20 pauses, a second of waiting; halted, only the pause under way.
  const hold = new HoldBack(1, 50);
  hold.tell(1_000_000);
  let stopping = false;
  const started = Date.now();
  const waiting = hold.wait(() => stopping);
  stopping = true;
  await waiting;
  t.ok(Date.now() - started < 500, `waited ${Date.now() - started} ms`);
  t.equal(hold.behind, true, 'the count is kept for whoever asks next');
});
