// Covers the stall waits (10 s × 4^k, at most 10 min; about 23.5 min at the default 5) and the retry backoff.
import t from 'tap';
import { retryPolicyOf, retryWaitSeconds, stallWaitSeconds } from './schedule.js';

t.test('stall waits grow from 10 s to 10 min', async (t) => {
  t.same([0, 1, 2, 3, 4, 5].map(stallWaitSeconds), [10, 40, 160, 600, 600, 600]);
  const total = [0, 1, 2, 3, 4].reduce((sum, k) => sum + stallWaitSeconds(k), 0);
  t.equal(total, 1410, '23.5 minutes at delivery_max_dispatches 5');
});

t.test('retry waits grow by the backoff up to the cap, until the attempt limit', async (t) => {
  const policy = retryPolicyOf({
    max_attempts: 5,
    retry_interval: 10,
    retry_backoff: 3,
    retry_max_interval: 60,
  });
  t.same(
    [1, 2, 3, 4].map((a) => retryWaitSeconds(policy, a)),
    [10, 30, 60, 60],
  );
  t.equal(retryWaitSeconds(policy, 5), undefined, 'no retry after the fifth attempt');
  t.same(retryPolicyOf({}), {
    max_attempts: 10,
    retry_interval: 30,
    retry_backoff: 2,
    retry_max_interval: 3600,
  });
});
