/**
 * The AS2 sender's memory for one large document, alone: the document (random bytes, so no
 * layer shrinks) is packed as the sender packs it (compressed before signing, SHA-256 signed,
 * AES-256-CBC encrypted for RSA-2048 keys) and posted to an HTTP sink on 127.0.0.1 that reads
 * and drops the body, in this one process; its RSS is sampled every 10 ms and the peak growth
 * over the RSS before is reported. `--path streamed` (default) is what the sender does from
 * 1 MiB on: pack from a file through temporary files and stream the body; `--path memory` is
 * the in-memory path (the document read whole, packOutgoing, the chunks written), as the
 * sender did for every size before.
 * Options: --size <MiB> (default 64), --path streamed|memory.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomFillSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { postAs2 } from '../actors/as2-sender/post.js';
import { packOutgoing, type PackOptions } from '../actors/as2/pack.js';
import { packOutgoingStreamed } from '../actors/as2/stream/pack-streamed.js';
import { fileRange, type Source } from '../actors/as2/stream/source.js';
import { TempFiles } from '../actors/as2/stream/temp-files.js';

const { values } = parseArgs({ options: { size: { type: 'string' }, path: { type: 'string' } } });
const sizeMiB = Number(values.size ?? 64);
const mode = values.path ?? 'streamed';
if (mode !== 'streamed' && mode !== 'memory') throw new Error('--path is streamed or memory');
const log = (text: string) => process.stderr.write(`${text}\n`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'pier-bench-send-'));
execFileSync(
  'openssl',
  [...'req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -days 2 -subj /CN=bench'.split(' ')],
  { cwd: dir, stdio: 'ignore' },
);
const certificate = new X509Certificate(readFileSync(path.join(dir, 'c.pem')));
const privateKey = createPrivateKey(readFileSync(path.join(dir, 'k.pem')));
const documentFile = path.join(dir, 'document.bin');
{
  const document = Buffer.alloc(sizeMiB * 1024 * 1024);
  randomFillSync(document);
  writeFileSync(documentFile, document);
}
const options: PackOptions = {
  filename: 'large.bin',
  compress: 'before-sign',
  sign: { algorithm: 'sha-256', certificate, privateKey },
  encrypt: { algorithm: 'aes256-cbc', certificate },
};

let sunk = 0;
const sink = http.createServer((request, response) => {
  request.on('data', (chunk: Buffer) => (sunk += chunk.length));
  request.on('end', () => response.end('ok'));
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const url = new URL(`http://127.0.0.1:${(sink.address() as AddressInfo).port}/as2`);
// Plain HTTP: postAs2 reads the partner's TLS settings only for https.

global.gc?.();
await new Promise((resolve) => setTimeout(resolve, 200));
const base = process.memoryUsage().rss;
let peak = base;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
log(`packing and posting ${sizeMiB} MiB (${mode})…`);
const t0 = performance.now();
const temp = await TempFiles.create(dir);
let body: Source;
let headers: Record<string, string>;
if (mode === 'streamed') {
  const packed = await packOutgoingStreamed(fileRange(documentFile, sizeMiB * 1024 * 1024), options, temp);
  body = packed.body;
  headers = packed.headers;
} else {
  const packed = packOutgoing(await readFile(documentFile), options);
  body = { length: packed.bodyLength, chunks: packed.bodyChunks };
  headers = packed.headers;
}
const answer = await postAs2(
  url,
  { ...headers, 'Content-Length': String(body.length) },
  body,
  600_000,
  new http.Agent(),
);
await temp.remove();
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
const seconds = Math.round((performance.now() - t0) / 100) / 10;
sink.close();
rmSync(dir, { recursive: true, force: true });
if (answer.status !== 200 || sunk !== body.length)
  throw new Error(`the sink got ${sunk} of ${body.length} bytes`);
console.log(
  JSON.stringify({
    benchmark: 'as2-send-memory',
    path: mode,
    document_mib: sizeMiB,
    body_mib: Math.round((body.length / 1024 / 1024) * 10) / 10,
    seconds,
    rss_base_mib: Math.round(base / 1024 / 1024),
    rss_growth_mib: Math.round((peak - base) / 1024 / 1024),
  }),
);
