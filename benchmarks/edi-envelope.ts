/**
 * What reading the EDI envelope adds to each message the AS2 receiver takes: the receiver's step
 * (actors/shared/edi-envelope.ts) run alone on as2-loopback's document (a 10 KiB EDIFACT
 * interchange of 126 messages, kept inline), on as2-receive's (the same text after a counter, so
 * not EDI: only told apart), and on a 1 MiB interchange read from a stored file or from its first 64 KiB in
 * hand (what the AS2 receiver's pool hands back with a document it unpacked in memory), with and without the reader,
 * interleaved A B A B so the machine's load falls on both alike. Without: the step the receiver
 * takes when read_edi_envelope is off (nothing). Reported as CPU per message (process user+system
 * time) and as a fraction of an RSA-2048 private-key operation (`openssl speed -seconds 2 rsa2048`
 * measured before the runs), the unit of as2-receive's CPU figures.
 *
 * Options: --messages <n> per round (default 20000 inline, a tenth from files), --rounds <n> (default 4).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { envelopeOf } from '../actors/shared/edi-envelope.js';
import { maxHeadBytes } from '../edi/envelope-reader.js';
import { benchDocument, loopbackDocument } from './lib/as2-requests.js';
import { opensslRsaSignsPerSecond } from './lib/cpu.js';

const { values } = parseArgs({ options: { messages: { type: 'string' }, rounds: { type: 'string' } } });
const messages = Number(values.messages ?? 20_000);
const rounds = Number(values.rounds ?? 4);

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

const inline = loopbackDocument(10 * 1024).toString('base64');
const notEdi = benchDocument(1, 10 * 1024).toString('base64');
const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-bench-edi-'));
const large = path.join(dir, 'large.edi');
const largeDocument = loopbackDocument(1024 * 1024);
await writeFile(large, largeDocument);
// What the receiver's pool hands back with a large document it wrote from memory (open-message.ts).
const largeHead = new Uint8Array(largeDocument.subarray(0, maxHeadBytes));

type Case = { name: string; count: number; run: (withReader: boolean) => Promise<unknown> };
const cases: Case[] = [
  {
    name: '10 KiB EDIFACT inline (as2-loopback document)',
    count: messages,
    run: (withReader) =>
      withReader
        ? envelopeOf({ content: inline, open: () => Promise.reject(new Error('inline')) })
        : Promise.resolve(),
  },
  {
    name: '10 KiB not EDI inline (as2-receive document)',
    count: messages,
    run: (withReader) =>
      withReader
        ? envelopeOf({ content: notEdi, open: () => Promise.reject(new Error('inline')) })
        : Promise.resolve(),
  },
  {
    name: '1 MiB from a stored file',
    count: Math.max(1, Math.floor(messages / 10)),
    run: (withReader) =>
      withReader ? envelopeOf({ open: async () => createReadStream(large) }) : Promise.resolve(),
  },
  {
    name: '1 MiB with its head in hand (the AS2 receiver, unpacked in memory)',
    count: Math.max(1, Math.floor(messages / 10)),
    run: (withReader) =>
      withReader
        ? envelopeOf({ head: largeHead, open: () => Promise.reject(new Error('in hand')) })
        : Promise.resolve(),
  },
];

const rsaPerSecond = opensslRsaSignsPerSecond(2);
console.log(
  `openssl speed rsa2048: ${rsaPerSecond.toFixed(0)} private-key operations/s (1 op = ${(1e6 / rsaPerSecond).toFixed(0)} µs CPU)`,
);
console.log('| case | round | with reader µs/msg | without µs/msg | added µs/msg | added RSA-2048 ops/msg |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const c of cases) {
  const added: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const per: Record<string, number> = {};
    // A B A B: each round measures with, then without.
    for (const withReader of [true, false]) {
      const start = cpuMicros();
      for (let i = 0; i < c.count; i++) await c.run(withReader);
      per[String(withReader)] = (cpuMicros() - start) / c.count;
    }
    const extra = per.true! - per.false!;
    added.push(extra);
    console.log(
      `| ${c.name} | ${round} | ${per.true!.toFixed(2)} | ${per.false!.toFixed(2)} | ${extra.toFixed(2)} | ${(extra / (1e6 / rsaPerSecond)).toFixed(4)} |`,
    );
  }
  const sorted = [...added].sort((x, y) => x - y);
  console.log(
    `| ${c.name} | median | | | ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} | ${(sorted[Math.floor(sorted.length / 2)]! / (1e6 / rsaPerSecond)).toFixed(4)} |`,
  );
}
await rm(dir, { recursive: true, force: true });
