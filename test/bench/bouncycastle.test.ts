// Covers `pier bench as2` against another implementation: the live BouncyCastle S/MIME AS2 peer of the suite (test/fixtures/bc-as2-peer), which decrypts, decompresses and verifies each of pier's messages and answers a signed receipt with the MIC it computed itself; every receipt is checked right at two concurrencies, and the peer wrote each document byte for byte.
import path from 'node:path';
import { readdir, readFile, rm } from 'node:fs/promises';
import t from 'tap';
import { startBcReceiver, unavailable } from '../helpers/bc-as2-peer.js';
import { makeFixtures } from '../helpers/certificates.js';
import { tempDir } from '../helpers/flow.js';
import { runPier } from '../helpers/pier-shell.js';
import { benchDocument } from '../../cli/bench/message-set.js';

const f = makeFixtures();
t.teardown(() => f.remove());
f.selfSigned('pier', '/O=pier/CN=pier.as2.example');
f.selfSigned('bc', '/O=BouncyCastle peer/CN=bc.as2.example');
const file = (name: string) => path.join(f.dir, name);
const written = await tempDir(t, 'pier-bench-bc-');
const peer = await startBcReceiver(
  t,
  [{ ownCertificate: file('bc.crt'), ownKey: file('bc.key'), partnerCertificate: file('pier.crt') }],
  written,
);
if (typeof peer === 'string') unavailable(t, peer);
else
  void t.test('every receipt right at two concurrencies, every document byte for byte', async (t) => {
    const set = path.join(written, '..', `${path.basename(written)}-set`);
    t.teardown(() => rm(set, { recursive: true, force: true }));
    const run = await runPier(
      [
        'bench',
        'as2',
        '--url',
        peer.url,
        '--from',
        'PIER',
        '--to',
        'BC',
        '--key',
        file('pier.key'),
        '--cert',
        file('pier.crt'),
        '--partner-cert',
        file('bc.crt'),
        '--messages',
        '6',
        '--concurrency',
        '1,2',
        '--warm-up',
        '2',
        '--size',
        '3000',
        '--set',
        set,
        '--json',
      ],
      {},
    );
    t.equal(run.code, 0, run.stderr);
    const r = JSON.parse(run.stdout);
    t.equal(r.passed, true);
    t.same(
      r.cases.map((c: { ok: number }) => c.ok),
      [6, 6],
    );
    // What the peer wrote: each document of the set, byte for byte, once per message fired (2 + 6 + 6).
    const documents = new Set([0, 1, 2, 3, 4, 5].map((i) => benchDocument(i, 3000).toString('latin1')));
    const files = (await readdir(written, { recursive: true, withFileTypes: true })).filter((e) =>
      e.isFile(),
    );
    t.equal(files.length, 14);
    for (const e of files)
      t.ok(
        documents.has((await readFile(path.join(e.parentPath, e.name))).toString('latin1')),
        `${e.name} is a document of the set`,
      );
  });
