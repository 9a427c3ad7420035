// Covers docs/partner-setup.md: its shell blocks, run as written between two `pier serve`
// processes (acme and globex, each the other's AS2 partner), exchange certificates, pass the
// connection check and deliver a file dropped in one's outbox to the other's inbox.
import { execFile } from 'node:child_process';
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { freePort } from './helpers/as2.js';
import { blocksOf, partnerSetup, startPier } from './helpers/document-pier.js';
import { tempDir } from './helpers/flow.js';
import { waitFor } from './helpers/wait.js';

const blocks = blocksOf(partnerSetup, 'sh');
t.equal(blocks.length, 3, 'the document has its three blocks');

interface Side {
  name: string;
  as2id: string;
  work: string;
  url: string;
  receiverPort: number;
}

function bash(script: string, side: Side, partner: Side): Promise<{ code: number; out: string }> {
  return new Promise((resolve) =>
    execFile(
      'bash',
      ['-c', script],
      {
        env: {
          ...process.env,
          PIER: side.url,
          TOKEN: '',
          WORK: side.work,
          ORG: side.name,
          OUR_AS2_ID: side.as2id,
          PARTNER: partner.name,
          PARTNER_AS2_ID: partner.as2id,
          PARTNER_URL: `http://127.0.0.1:${partner.receiverPort}/as2`,
          RECEIVER_HOST: '127.0.0.1',
          RECEIVER_PORT: String(side.receiverPort),
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    ),
  );
}

t.test('the blocks, run as written, connect two piers that exchange a file', async (t) => {
  const [urlA, urlB] = await Promise.all([startPier(t, 'acme'), startPier(t, 'globex')]);
  const a: Side = {
    name: 'acme',
    as2id: 'ACME',
    work: await tempDir(t),
    url: urlA,
    receiverPort: await freePort(),
  };
  const b: Side = {
    name: 'globex',
    as2id: 'GLOBEX',
    work: await tempDir(t),
    url: urlB,
    receiverPort: await freePort(),
  };

  for (const [side, other] of [
    [a, b],
    [b, a],
  ] as const) {
    const keys = await bash(blocks[0]!, side, other);
    t.equal(keys.code, 0, keys.out);
  }
  await copyFile(path.join(a.work, 'our.crt'), path.join(b.work, 'partner.crt'));
  await copyFile(path.join(b.work, 'our.crt'), path.join(a.work, 'partner.crt'));

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
