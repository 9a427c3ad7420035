// Covers an AS2 receiver handing its documents to a file writer on two threads (`threads` 2) in a real `pier serve`: the receiver spreads its hand-offs over both threads (the second has no share of max_concurrent_deliveries 1, so what it writes was handed to it), every receipted document is written once with its bytes, nothing is stored twice and every delivery is recorded delivered once.
import path from 'node:path';
import t from 'tap';
import { makeParties } from '../as2/parties.js';
import { as2ReceiversOnProcesses } from '../helpers/as2-on-processes.js';
import { as2Outcome, eachReceiptedAndWrittenOnce } from '../helpers/as2-outcome.js';
import { sendUntilReceipts } from '../helpers/as2-retrying-client.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { loggedIn, mustOn, perThread } from '../helpers/process.js';
import { allDelivered, rowCounter } from '../helpers/row-counts.js';

t.setTimeout(300_000);

const db = await createTestDatabase();
t.teardown(() => db.drop());
const dir = await tempDir(t, 'pier-writer-handoff-');
const outbox = path.join(dir, 'out');
const parties = makeParties();
t.teardown(() => parties.remove());

const {
  processes: [pier],
  urls: [url],
} = await as2ReceiversOnProcesses(
  t,
  1,
  () => ({ databaseUrl: db.url, dataDir: path.join(dir, 'data'), cwd: dir }),
  { fixtures: parties.fixtures, certFile: parties.alice.certFile, keyFile: parties.alice.keyFile },
  'out',
  (p) =>
    mustOn(p, '/plugins/configs?type=file-writer', {
      name: 'out',
      directory: outbox,
      threads: 2,
      max_concurrent_deliveries: 1,
    }).then(() => {}),
);

t.test('the receiver spreads its documents over both writer threads; each is written once', async (t) => {
  await loggedIn(pier!, 'writing on 2 threads');
  const load = { urls: [url!], keys: parties.alice, concurrency: 8, documentBytes: 4 * 1024, run: 'h' };
  const sent = await sendUntilReceipts({ ...load, receipts: 120, withinMs: 240_000, giveUpMs: 60_000 });
  const outcome = await as2Outcome(db.url, sent, path.join(outbox, 'alice'));
  eachReceiptedAndWrittenOnce(t, outcome);
  const deliveries = outcome.withReceipt;
  await allDelivered(rowCounter(db.url), deliveries, 60_000, 'every delivery recorded delivered');
  const by = perThread(pier!, 'delivery delivered', { target: 'out' }, 'delivery_id');
  const ids = [...by.values()].flat();
  t.equal(new Set(ids).size, ids.length, 'each delivery recorded once');
  t.equal(ids.length, deliveries, 'a line for each');
  const [first, second] = [by.get(1)?.length ?? 0, by.get(2)?.length ?? 0];
  // An even spread is about half each; either thread writing none would be the bug.
  t.ok(
    first >= deliveries / 5 && second >= deliveries / 5,
    `both threads write: ${first} and ${second} of ${deliveries}`,
  );
});
