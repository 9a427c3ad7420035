// Covers docs/partner-setup.md: its shell blocks, run as written between two `pier serve`
// processes (acme and globex, each the other's AS2 partner), exchange certificates, pass the
// connection check and deliver a file dropped in one's outbox to the other's inbox.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import {
  blocksOf,
  exchangeKeys,
  partnerSetup,
  runBlock,
  twoSides,
  type Side,
} from './helpers/document-pier.js';
import { waitFor } from './helpers/wait.js';

const blocks = blocksOf(partnerSetup, 'sh');
t.equal(blocks.length, 3, 'the document has its three blocks');

/** A block run to its end: its exit code and everything it wrote. */
async function bash(script: string, side: Side, partner: Side): Promise<{ code: number; out: string }> {
  const run = runBlock(script, side, partner, 120_000);
  return { code: await run.done, out: run.out() };
}

t.test('the blocks, run as written, connect two piers that exchange a file', async (t) => {
  const [a, b] = await twoSides(t);
  await exchangeKeys(t, blocks[0]!, a, b);

  const configB = await bash(blocks[1]!, b, a);
  t.equal(configB.code, 0, configB.out);
  t.match(configB.out, `AS2 URL http://<this host>:${b.receiverPort}/as2, AS2 id GLOBEX`);
  const sendA = await bash(`${blocks[1]!}\n${blocks[2]!}`, a, b);
  t.equal(sendA.code, 0, sendA.out);
  t.match(sendA.out, /"ok":true/, 'the connection check passes');
  t.match(sendA.out, /"message_id":"[0-9a-f-]{36}"/, 'the test message is accepted');

  const arrived = path.join(b.work, 'inbox', 'acme', 'hello.txt');
  const content = await waitFor(
    () => readFile(arrived, 'utf8').catch(() => undefined),
    'hello.txt arrives',
    90_000,
  );
  t.equal(content, 'Hello from acme\n', 'the file from acme’s outbox is in globex’s inbox');
});
