// Covers where the receiver opens a message and with which keys: a small message alone is opened
// on the receiver's thread; several at once (more than the pool has threads), one while others
// wait at the receiver, and larger ones go to the pool; a pool thread asks for a context it has
// not seen and then keeps it, and a context the receiver was given anew (a key rolled over or
// removed) counts from the next message on, in every pool thread; a message refused after it was
// opened (a CEM request the core refused) gets a receipt saying so, wherever it was opened.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { packOutgoing } from '../as2/index.js';
import type { As2InboundContext } from '../../protocol/as2-protocol.js';
import { LocalPayloadStore } from '../../storage/payloads/local-store.js';
import { makeParties } from '../../test/as2/parties.js';
import { MessageOpener } from './open-pool.js';
import { cemRefused, type OpenTask } from './open-message.js';
import { limits } from '../../limits/limits.js';

const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures, alice, bob } = parties;
const pem = (file: string) => fixtures.read(file).toString();
const storeDir = mkdtempSync(path.join(os.tmpdir(), 'pier-open-pool-'));
t.teardown(() => rmSync(storeDir, { recursive: true, force: true }));
const opener = new MessageOpener(new LocalPayloadStore(storeDir), 64 * 1024 * 1024);
t.teardown(() => opener.close());

/** bob's context as the core answers it; `decrypting`: whose keys bob holds. */
const contextWith = (decrypting: 'bob' | 'mallory'): As2InboundContext => ({
  found: true,
  organization: 'bob',
  partner: 'alice',
  decryption: [{ certificate_pem: pem(`${decrypting}.crt`), private_key_pem: pem(`${decrypting}.key`) }],
  signing: { certificate_pem: pem('bob.crt'), private_key_pem: pem('bob.key') },
  verification: [pem('alice.crt')],
  partner_certificates: [pem('alice.crt')],
  require_signed: true,
  require_encrypted: true,
  require_modern: false,
  as2bis: false,
  max_message_bytes: null,
});

function task(
  context: As2InboundContext,
  document = Buffer.from(`UNA:+.? 'UNB+UNOC:3+ALICE+BOB+${randomUUID()}'`),
): OpenTask {
  const packed = packOutgoing(document, {
    filename: 'order.edi',
    sign: { algorithm: 'sha-256', certificate: alice.certificate, privateKey: alice.privateKey },
    encrypt: { algorithm: 'aes256-cbc', certificate: bob.certificate },
  });
  const body = Buffer.from(packed.body);
  const messageId = `<${randomUUID()}@alice>`;
  return {
    messageId: randomUUID(),
    body,
    receivedBytes: body.length,
    headers: Object.fromEntries(Object.entries(packed.headers).map(([k, v]) => [k.toLowerCase(), v])),
    context,
    maxPayloadBytes: 1024 * 1024,
    as2From: 'alice',
    as2To: 'bob',
    originalMessageId: messageId,
    receipt: {
      identification: 'pier',
      options: 'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
    },
  };
}

/**
 * Opens n messages at once, built first, so that all are given in one synchronous run: the first
 * is alone at the receiver and the others are not, however fast the pool threads are.
 */
const outcomes = async (context: As2InboundContext, n: number) => {
  const tasks = Array.from({ length: n }, () => task(context));
  return (await Promise.all(tasks.map((one) => opener.open(one)))).map((r) => r.outcome);
};

await opener.ready;

t.test('a message alone is opened on the receiver thread, several at once in the pool', async (t) => {
  const context = contextWith('bob');
  const before = { ...opener.opened };
  for (let i = 0; i < 3; i++) t.equal((await opener.open(task(context))).outcome, 'processed');
  t.same(opener.opened, { here: before.here + 3, pool: before.pool }, 'one at a time: all three here');
  // The first is alone; the others go to the pool, those its threads have no room for too: they
  // wait there rather than hold this thread (open-pool.ts says why).
  const n = opener.poolThreads + 3;
  t.same(await outcomes(context, n), Array(n).fill('processed'), `${n} at once are processed`);
  t.same(
    opener.opened,
    { here: before.here + 3 + 1, pool: before.pool + n - 1 },
    `of ${n} at once, the first here and the others in the pool`,
  );
  // Random bytes do not compress: the body stays above the size opened here.
  const larger = task(context, randomBytes(limits.openOnListenerMaxBytes + 1024));
  t.ok(larger.receivedBytes > limits.openOnListenerMaxBytes);
  t.equal((await opener.open(larger)).outcome, 'processed');
  t.equal(opener.opened.pool, before.pool + n, 'a larger message alone goes to the pool');
});

t.test('a message opened while others wait at the receiver goes to the pool', async (t) => {
  const context = contextWith('bob');
  // Another message has arrived and waits for its acceptance: nothing else is being opened, as at
  // concurrency 16 between two openings on this thread, but the receiver is not idle.
  const waiting = opener.arrive();
  const leave = opener.arrive();
  const before = { ...opener.opened };
  for (let i = 0; i < 3; i++) t.equal((await opener.open(task(context))).outcome, 'processed');
  t.same(opener.opened, { here: before.here, pool: before.pool + 3 }, 'one at a time, all three in the pool');
  leave();
  leave();
  waiting();
  t.equal((await opener.open(task(context))).outcome, 'processed');
  t.equal(opener.opened.here, before.here + 1, 'alone again (left twice counts once): opened here');
});

t.test('a context given anew counts from the next message in every pool thread', async (t) => {
  // The same parties, but bob's decryption key replaced: nothing decrypts with the old one kept.
  t.same(
    await outcomes(contextWith('mallory'), 8),
    Array(8).fill('processed/Error: decryption-failed'),
    'without bob’s key, none decrypts',
  );
  t.same(await outcomes(contextWith('bob'), 8), Array(8).fill('processed'), 'with it again, all do');
});

t.test('a message refused after it was opened gets a receipt saying so, on either thread', async (t) => {
  const context = contextWith('bob');
  const disposition = (body: Buffer) => /Disposition: ([^\r\n]*)/.exec(body.toString('latin1'))?.[1];
  const before = { ...opener.opened };
  const here = await opener.open(task(context));
  // Another message waits at the receiver: this one goes to the pool, which makes its receipt there.
  const leave = opener.arrive();
  opener.arrive();
  const pooled = await opener.open(task(context));
  leave();
  leave();
  t.same(opener.opened, { here: before.here + 1, pool: before.pool + 1 }, 'one on each thread');
  for (const [where, opened] of [
    ['here', here],
    ['pool', pooled],
  ] as const) {
    t.equal(opened.outcome, 'processed', `${where}: processed when opened`);
    const { receipt, receiptStage } = await opened.finishReceipt(cemRefused);
    t.equal(
      disposition(receipt!.body),
      'automatic-action/MDN-sent-automatically; processed/Error: unexpected-processing-error',
      `${where}: the receipt says error`,
    );
    t.notMatch(receipt!.body.toString('latin1'), /Received-Content-MIC/i, `${where}: no MIC for a refusal`);
    t.ok(receipt!.signed, `${where}: signed as asked`);
    t.ok(receiptStage, `${where}: kept`);
  }
  const plain = await (await opener.open(task(context))).finishReceipt();
  t.equal(
    disposition(plain.receipt!.body),
    'automatic-action/MDN-sent-automatically; processed',
    'otherwise processed',
  );
  t.match(plain.receipt!.body.toString('latin1'), /Received-Content-MIC/i, 'with its MIC');
});
