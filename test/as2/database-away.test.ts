// Covers the AS2 receiver while its database is away (every connection reset and refused, as in a failover): a message is answered 503 with Retry-After and no receipt, and the same message sent again once the database answers gets its processed receipt and is stored and written once; the receiver tells the 503s in one line, and their end in one. And a large message whose acceptance committed with only its answer lost (the database connection failed after the commit): the copy sent again gets the receipt, and the stored message keeps its document.
import path from 'node:path';
import { readdir } from 'node:fs/promises';
import t, { type Test } from 'tap';
import { makeParties } from './parties.js';
import { as2ReceiversOnProcesses } from '../helpers/as2-on-processes.js';
import { as2Outcome } from '../helpers/as2-outcome.js';
import { startAs2Load } from '../helpers/as2-retrying-client.js';
import { sql } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { mustOn } from '../helpers/process.js';
import { databaseBehindProxy } from '../helpers/tcp-proxy.js';
import { waitFor } from '../helpers/wait.js';

const { db, proxy, url: throughProxy } = await databaseBehindProxy(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const dir = await tempDir(t, 'pier-as2-away-');
const outbox = path.join(dir, 'out');

/** One pier process with alice's AS2 receiver and the file writer `out`, on `databaseUrl`. */
const receiver = (t: Test, databaseUrl: string, data: string) =>
  as2ReceiversOnProcesses(
    t,
    1,
    () => ({ databaseUrl, dataDir: path.join(dir, data), cwd: dir }),
    { fixtures: parties.fixtures, certFile: parties.alice.certFile, keyFile: parties.alice.keyFile },
    'out',
    async (p) =>
      void (await mustOn(p, '/plugins/configs?type=file-writer', { name: 'out', directory: outbox })),
  );

t.test('503 and no receipt while the database is away; the copy sent again is taken once', async (t) => {
  const { urls, processes } = await receiver(t, throughProxy, 'data');
  const first = startAs2Load({
    urls,
    keys: parties.alice,
    concurrency: 1,
    documentBytes: 512,
    run: 'before',
  });
  await waitFor(() => first.receipts >= 3, 'receipts while the database answers', 30_000);
  await first.stop(10_000);

  await proxy.cut();
  const during = startAs2Load({ urls, keys: parties.alice, concurrency: 2, documentBytes: 512, run: 'away' });
  await waitFor(
    () => during.messages.some((m) => m.answers.some((a) => a.status === 503)),
    'a 503 while the database is away',
    30_000,
  );
  await new Promise((resolve) => setTimeout(resolve, 2000));
  t.equal(during.receipts, 0, 'no receipt while the database is away');
  await proxy.restore();
  await waitFor(() => during.receipts >= 2, 'the copies sent again are received', 60_000);
  const sent = [...first.messages, ...(await during.stop(30_000))];
  await waitFor(
    async () => (await readdir(path.join(outbox, 'alice')).catch(() => [])).length >= sent.length,
    'every document written',
    30_000,
  ).catch(async (error: unknown) => {
    t.comment(
      JSON.stringify(
        await sql(
          db.url,
          'select state, target, last_error, count(*)::int as n from delivery group by 1, 2, 3',
        ),
      ),
    );
    t.comment(
      JSON.stringify(
        sent.map((m) => ({
          id: m.messageId,
          answers: m.answers.map((a) => a.status),
          receipt: m.receiptAt !== null,
        })),
      ),
    );
    t.comment(JSON.stringify(await readdir(path.join(outbox, 'alice'), { recursive: true }).catch(() => [])));
    t.comment(JSON.stringify(await readdir(outbox, { recursive: true }).catch(() => [])));
    throw error;
  });

  const o = await as2Outcome(db.url, sent, path.join(outbox, 'alice'));
  t.same(Object.keys(o.answersWithoutReceipt), ['503'], 'every answer without a receipt was a 503');
  t.equal(o.bad503s, 0, 'each with Retry-After and no disposition');
  const retryAfter = sent.flatMap((m) => m.answers).find((a) => a.status === 503)?.retryAfter;
  t.equal(retryAfter, '5', 'Retry-After: 5 seconds');
  t.equal(o.withReceipt, sent.length, 'every message has its receipt in the end');
  t.same(o.storedTwice, [], 'none stored twice');
  t.same(o.receiptedNotWritten, [], 'each written');
  t.same(o.otherFiles, [], 'and once');
  const told = (msg: string) => processes[0]!.logLines.filter((l) => l.msg === msg).length;
  t.equal(
    told('AS2 messages are answered 503 while the database does not take them'),
    1,
    'the 503s told once',
  );
  t.equal(told('the database takes AS2 messages again'), 1, 'and their end once');
});

t.test('a large message whose acceptance committed with its answer lost keeps its document', async (t) => {
  // A database of its own: the receivers' set-up is made anew.
  const { db, proxy, url: throughProxy } = await databaseBehindProxy(t);
  const { urls, processes } = await receiver(t, throughProxy, 'data-lost');
  // A first message through, so the next acceptance is one statement: the one whose answer is lost.
  const warm = startAs2Load({ urls, keys: parties.alice, concurrency: 1, documentBytes: 512, run: 'warm' });
  await waitFor(() => warm.receipts >= 1, 'a receipt', 30_000);
  await warm.stop(10_000);
  const stored = async () => Number((await sql(db.url, 'select count(*)::int as n from message'))[0]!.n);
  const before = await stored();

  proxy.muffle();
  // Over 1 MiB on the wire (not compressed): the receiver stores the body before opening it
  // (actors/as2-receiver/read-body.ts), and a failed acceptance removed what it stored.
  const large = startAs2Load({
    urls,
    keys: parties.alice,
    concurrency: 1,
    documentBytes: 1536 * 1024,
    run: 'lost',
    compress: false,
  });
  await waitFor(async () => (await stored()) > before, 'the acceptance committed', 60_000, 100);
  await proxy.cut();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await proxy.restore();
  await waitFor(() => large.receipts >= 1, 'the receipt for the copy sent again', 60_000);
  const [sent] = await large.stop(10_000);
  t.ok(
    sent!.answers.some((a) => a.status === 503),
    'the first copy was answered 503: its acceptance did not answer',
  );
  const [message] = await sql(
    db.url,
    'select m.id::text as id from message m join as2_message a on a.message_id = m.id where a.as2_message_id = $1',
    [sent!.messageId],
  );
  t.ok(message, 'the message is stored once, from the first copy');
  const download = await fetch(`${processes[0]!.url}/api/v1/messages/${message!.id}/payload?stage=unpacked`);
  t.equal(download.status, 200, 'its document is there to download');
  t.ok(Buffer.from(await download.arrayBuffer()).equals(sent!.document), 'whole');
  await waitFor(
    async () => (await readdir(path.join(outbox, 'alice'))).includes(sent!.fileName),
    'the document written',
    30_000,
  );
});
