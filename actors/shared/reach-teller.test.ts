// Covers what a target tells the core of its partners: every failed attempt an unreachable partner makes, the first success after failures or after the start (then nothing per success), per partner; a 4xx or a store failure is not the partner's; a success after a store failure tells the store works again.
import t from 'tap';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import { ReachTeller } from './reach-teller.js';

function teller() {
  const told: string[] = [];
  const core = {
    reach: (ok: boolean, partner?: string, error?: string) =>
      told.push(`reach ${ok ? 'ok' : 'failed'} ${partner ?? '-'}${error ? ` ${error}` : ''}`),
    storage: (ok: boolean) => told.push(`storage ${ok ? 'ok' : 'failed'}`),
  };
  return { told, reach: new ReachTeller(core, (d) => d.message.to) };
}
const to = (partner: string) => ({ message: { to: partner } }) as ClaimedDelivery;
const ok: DeliveryOutcome = { ok: true };
const refused: DeliveryOutcome = { ok: false, retryable: true, error: 'connect ECONNREFUSED 127.0.0.1:1' };
const answered404: DeliveryOutcome = { ok: false, retryable: false, error: 'HTTP 404 Not Found' };
const storeDown: DeliveryOutcome = {
  ok: false,
  retryable: true,
  error: 'S3 GetObject failed: socket hang up',
};

t.test(
  'a healthy partner is told once; each unreachable attempt is told; the success after them once',
  async (t) => {
    const { told, reach } = teller();
    for (let i = 0; i < 3; i++) reach.observe(to('globex'), ok);
    reach.observe(to('globex'), refused);
    reach.observe(to('globex'), refused);
    reach.observe(to('globex'), ok);
    reach.observe(to('globex'), ok);
    t.same(told, [
      'reach ok globex',
      'reach failed globex connect ECONNREFUSED 127.0.0.1:1',
      'reach failed globex connect ECONNREFUSED 127.0.0.1:1',
      'reach ok globex',
    ]);
  },
);

t.test('partners are told apart; a 4xx answer is not unreachable', async (t) => {
  const { told, reach } = teller();
  reach.observe(to('globex'), ok);
  reach.observe(to('initech'), refused);
  reach.observe(to('globex'), answered404);
  reach.observe(to('globex'), ok);
  t.same(told, ['reach ok globex', 'reach failed initech connect ECONNREFUSED 127.0.0.1:1']);
});

t.test('a store failure is not the partner; the next success says the store works again', async (t) => {
  const { told, reach } = teller();
  reach.observe(to('globex'), ok);
  reach.observe(to('globex'), storeDown);
  reach.observe(to('globex'), storeDown);
  t.same(told, ['reach ok globex'], 'nothing told of the partner');
  const outcome = await reach.watch(to('globex'), Promise.resolve(ok));
  t.equal(outcome, ok, 'watch passes the outcome through');
  t.same(told, ['reach ok globex', 'storage ok']);
});
