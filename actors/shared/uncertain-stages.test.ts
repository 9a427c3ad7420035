// Covers uncertain-stages.ts on a real local payload store: the stages of acceptances the database failed stay until it answers; then those of messages it stored are kept and the others removed; a database still away leaves them all for the next time, and a source that cannot ask keeps them.
import { readdir } from 'node:fs/promises';
import t, { type Test } from 'tap';
import { LocalPayloadStore } from '../../storage/payloads/local-store.js';
import { tempDir } from '../../test/helpers/flow.js';
import { UncertainStages } from './uncertain-stages.js';

const ids = ['0a0a0a0a-0000-4000-8000-000000000001', '0a0a0a0a-0000-4000-8000-000000000002'] as const;

async function storeWithTwo(t: Test) {
  const dir = await tempDir(t, 'pier-uncertain-');
  const store = new LocalPayloadStore(dir);
  for (const id of ids)
    await store.putBytes({ messageId: id, stage: 'unpacked' }, Buffer.from(`document ${id}`));
  return { store, left: async () => (await readdir(dir)).sort() };
}

t.test('once the database answers, only the stored message keeps its stages', async (t) => {
  const { store, left } = await storeWithTwo(t);
  const asked: string[][] = [];
  const uncertain = new UncertainStages(store, async (of) => {
    asked.push([...of]);
    return [ids[0]];
  });
  for (const id of ids) uncertain.keep(id);
  t.same(await left(), [...ids], 'kept while nobody could say');
  await uncertain.settle();
  t.same(asked, [[...ids]], 'asked once about both');
  t.same(await left(), [ids[0]], "the stored message's stages stay, the other's go");
  t.equal(uncertain.size, 0);
  await uncertain.settle();
  t.equal(asked.length, 1, 'nothing left to ask about');
});

t.test('a database still away leaves every stage for the next time', async (t) => {
  const { store, left } = await storeWithTwo(t);
  let away = true;
  const uncertain = new UncertainStages(store, async () => {
    if (away) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    return [];
  });
  for (const id of ids) uncertain.keep(id);
  await uncertain.settle();
  t.same(await left(), [...ids], 'nothing removed');
  t.equal(uncertain.size, 2, 'both still waiting');
  away = false;
  await uncertain.settle();
  t.same(await left(), [], 'removed once the database said neither was stored');
});

t.test('a source that cannot ask keeps the stages', async (t) => {
  const { store, left } = await storeWithTwo(t);
  const uncertain = new UncertainStages(store, async () => null);
  for (const id of ids) uncertain.keep(id);
  await uncertain.settle();
  t.same(await left(), [...ids]);
  t.equal(uncertain.size, 0, 'not asked about again');
});
