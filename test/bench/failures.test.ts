// Covers how `pier bench as2` judges answers, against receivers made for it on loopback: one that answers a signed receipt with a wrong MIC (counted as `mic`), one that answers an unsigned receipt where a signed one was asked (`receipt-unsigned`), one that answers 500 (`http-500`), one whose signed receipt names another Original-Message-ID (`original-message-id`) and one that closes the connection (`connection`); each run fails (exit 1, FAILED in the table) whatever its speed; and `--compare`, which fires the same messages at two endpoints in interleaved pairs (A then B, round after round, case after case) and gives B/A per pair and their median.
import { createHash } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import { buildMdn, processed } from '../../actors/as2/index.js';
import { certificateOf, privateKeyOf } from '../../actors/as2-shared/material.js';
import { makeFixtures } from '../helpers/certificates.js';
import { runPier } from '../helpers/pier-shell.js';

const f = makeFixtures();
t.teardown(() => f.remove());
f.selfSigned('sender', '/O=sender/CN=sender.example');
f.selfSigned('receiver', '/O=receiver/CN=receiver.example');
const receiverKey = {
  certificate: certificateOf(f.read('receiver.crt').toString()),
  privateKey: privateKeyOf(f.read('receiver.key').toString()),
};

interface Seen {
  messageId: string;
  bodySha: string;
}

/** A receiver on a free loopback port answering each request with `answer`; what it saw, in order. */
async function receiver(answer: (messageId: string, response: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const messageId = String(request.headers['message-id']);
      seen.push({ messageId, bodySha: createHash('sha256').update(Buffer.concat(chunks)).digest('hex') });
      answer(messageId, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/as2`, seen };
}

function receipt(
  response: http.ServerResponse,
  originalMessageId: string,
  signed: boolean,
  mic = Buffer.alloc(32, 7),
) {
  const mdn = buildMdn(
    {
      reportingUa: 'test receiver',
      originalRecipient: 'RECEIVER',
      finalRecipient: 'RECEIVER',
      originalMessageId,
      disposition: processed,
      mic: { algorithm: 'sha-256', digest: mic },
      text: 'received',
    },
    signed ? { digest: 'sha-256', ...receiverKey } : null,
  );
  response.writeHead(200, mdn.headers).end(mdn.body);
}

const flags = (url: string) => [
  'bench',
  'as2',
  '--url',
  url,
  '--from',
  'SENDER',
  '--to',
  'RECEIVER',
  '--key',
  path.join(f.dir, 'sender.key'),
  '--cert',
  path.join(f.dir, 'sender.crt'),
  '--partner-cert',
  path.join(f.dir, 'receiver.crt'),
  '--messages',
  '3',
  '--concurrency',
  '1',
  '--warm-up',
  '0',
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- asserted field by field
const run = async (args: string[]): Promise<{ code: number; r: any; stdout: string }> => {
  const answer = await runPier(args, {});
  return {
    code: answer.code,
    stdout: answer.stdout,
    r: answer.stdout.startsWith('{') ? JSON.parse(answer.stdout) : null,
  };
};

const cases: [string, (id: string, response: http.ServerResponse) => void, string][] = [
  ['a wrong MIC', (id, response) => receipt(response, id, true), 'mic'],
  [
    'an unsigned receipt where a signed one was asked',
    (id, response) => receipt(response, id, false),
    'receipt-unsigned',
  ],
  ['HTTP 500', (_id, response) => response.writeHead(500).end('broken'), 'http-500'],
  [
    'another message’s receipt',
    (_id, response) => receipt(response, '<someone-else@example>', true),
    'original-message-id',
  ],
  ['a closed connection', (_id, response) => response.socket?.destroy(), 'connection'],
];
for (const [what, answer, kind] of cases)
  t.test(`${what} is counted as ${kind} and fails the run`, async (t) => {
    const peer = await receiver(answer);
    const json = await run([...flags(peer.url), '--json']);
    t.equal(json.code, 1);
    t.equal(json.r.passed, false);
    t.same(json.r.cases[0].failures, { [kind]: 3 });
    t.equal(json.r.cases[0].ok, 0);
    const table = await run(flags(peer.url));
    t.equal(table.code, 1);
    t.match(table.stdout, new RegExp(`${kind} 3`));
    t.match(table.stdout, /FAILED: some messages were not answered with a right receipt/);
  });

t.test('--receipts none takes a 2xx as the answer, and a 500 still fails', async (t) => {
  const ok = await receiver((_id, response) => response.writeHead(204).end());
  const good = await run([...flags(ok.url), '--receipts', 'none', '--json']);
  t.equal(good.code, 0);
  t.equal(good.r.cases[0].ok, 3);
  t.notMatch(ok.seen.map((s) => s.messageId).join(), /undefined/);
});

t.test('--compare fires the same messages at both endpoints in interleaved pairs', async (t) => {
  const a = await receiver((_id, response) => response.writeHead(200).end());
  const b = await receiver((_id, response) => response.writeHead(200).end());
  const order: { endpoint: 'a' | 'b'; seen: Seen }[] = [];
  const watch = (name: 'a' | 'b', peer: { seen: Seen[] }) => {
    const push = peer.seen.push.bind(peer.seen);
    peer.seen.push = (...items: Seen[]) => {
      for (const seen of items) order.push({ endpoint: name, seen });
      return push(...items);
    };
  };
  watch('a', a);
  watch('b', b);
  const { code, r } = await run([
    ...flags(a.url),
    '--compare',
    b.url,
    '--receipts',
    'none',
    '--concurrency',
    '1,2',
    '--rounds',
    '2',
    '--messages',
    '4',
    '--json',
  ]);
  t.equal(code, 0);
  // Firings in the order requests arrived: each firing's Message-IDs share a tag (c<n>).
  const firings: { endpoint: string; tag: string; bodies: string[] }[] = [];
  for (const { endpoint, seen } of order) {
    const tag = /-([0-9a-z]+c\d+)-\d+@/.exec(seen.messageId)![1]!;
    const last = firings.at(-1);
    if (last?.tag === tag) last.bodies.push(seen.bodySha);
    else firings.push({ endpoint, tag, bodies: [seen.bodySha] });
  }
  t.same(
    firings.map((x) => x.endpoint),
    ['a', 'b', 'a', 'b', 'a', 'b', 'a', 'b'],
    'A then B, each firing whole before the next',
  );
  t.equal(new Set(firings.map((x) => x.tag)).size, 8, 'each firing once');
  for (let i = 0; i < firings.length; i += 2)
    t.same(
      [...firings[i + 1]!.bodies].sort(),
      [...firings[i]!.bodies].sort(),
      'a pair sends the same messages to both',
    );
  t.same(
    r.cases.map(
      (c: { endpoint: string; concurrency: number; round: number }) =>
        `${c.endpoint}${c.concurrency}r${c.round}`,
    ),
    ['a1r1', 'b1r1', 'a1r2', 'b1r2', 'a2r1', 'b2r1', 'a2r2', 'b2r2'],
  );
  t.equal(r.comparisons.length, 2);
  for (const c of r.comparisons) {
    t.equal(c.pair_ratios.length, 2);
    const pairs = r.cases.filter((x: { concurrency: number }) => x.concurrency === c.concurrency);
    t.equal(c.pair_ratios[0], Math.round((pairs[1].msg_per_s / pairs[0].msg_per_s) * 1000) / 1000);
    t.equal(c.ratio, Math.round(((c.pair_ratios[0] + c.pair_ratios[1]) / 2) * 1000) / 1000);
  }
});
