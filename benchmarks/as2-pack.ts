/**
 * AS2 library throughput on one thread: packOutgoing and unpackIncoming of a 10 KiB document,
 * compressed, signed with SHA-256 and encrypted with AES-256-CBC for RSA-2048 keys (what a
 * receiver and sender each do per message, without HTTP and storage). One RSA private-key
 * operation per pack (signing) and one per unpack (key transport), so the ceiling is the
 * machine's RSA-2048 signing rate, which is measured here too.
 * `openssl speed rsa2048` runs first for the machine's reference figure. The share of the RSA
 * limit is computed from CPU time (two private-key operations per pack + unpack), which stays
 * meaningful on a loaded machine where wall-clock rates do not.
 * Options: --seconds <n> per measurement (default 5), --size <bytes> (default 10240).
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createSign, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { packOutgoing, type PackOptions } from '../actors/as2/pack.js';
import { unpackIncoming } from '../actors/as2/unpack.js';

const { values } = parseArgs({ options: { seconds: { type: 'string' }, size: { type: 'string' } } });
const seconds = Number(values.seconds ?? 5);
const size = Number(values.size ?? 10 * 1024);

const dir = mkdtempSync(path.join(os.tmpdir(), 'pier-bench-as2-'));
function party(name: string) {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
    ],
    {
      cwd: dir,
      stdio: 'ignore',
    },
  );
  return {
    certificate: new X509Certificate(readFileSync(path.join(dir, `${name}.crt`))),
    privateKey: createPrivateKey(readFileSync(path.join(dir, `${name}.key`))),
  };
}
const sender = party('sender');
const receiver = party('receiver');
rmSync(dir, { recursive: true, force: true });

// EDI-like text: segments of printable characters, compressible as real documents are.
const segment = () =>
  `PO1*${randomBytes(6).toString('hex')}*10*EA*9.25**BP*${randomBytes(4).toString('hex')}~\r\n`;
let text = '';
while (text.length < size) text += segment();
const payload = Buffer.from(text.slice(0, size));

const options: PackOptions = {
  contentType: 'application/edi-x12',
  filename: 'po.edi',
  compress: 'before-sign',
  sign: { algorithm: 'sha-256', certificate: sender.certificate, privateKey: sender.privateKey },
  encrypt: { algorithm: 'aes256-cbc', certificate: receiver.certificate },
};
const receive = {
  decryptionKeys: [receiver],
  verificationCerts: [sender.certificate],
  requireSigned: true,
  requireEncrypted: true,
};

function measure(label: string, work: () => void): { opsPerSecond: number; cpuMsPerOp: number } {
  for (let i = 0; i < 50; i++) work(); // warm-up
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(seconds * 1e9));
  let ops = 0;
  while (process.hrtime.bigint() < deadline) {
    work();
    ops++;
  }
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  const result = {
    opsPerSecond: Math.round(ops / elapsed),
    cpuMsPerOp: Number(((cpu.user + cpu.system) / 1000 / ops).toFixed(3)),
  };
  console.error(`${label}: ${result.opsPerSecond} ops/s, ${result.cpuMsPerOp} ms CPU per op`);
  return result;
}

const sample = packOutgoing(payload, options);
const check = unpackIncoming(sample.body, sample.headers, receive);
if (!check.payload.equals(payload) || !check.mic.digest.equals(sample.mic.digest))
  throw new Error('round trip failed');

const speed = execFileSync('openssl', ['speed', '-seconds', '2', 'rsa2048'], {
  stdio: ['ignore', 'pipe', 'ignore'],
}).toString();
const opensslSign = Number(/^rsa 2048 bits\s+\S+s\s+\S+s\s+([\d.]+)/m.exec(speed)?.[1] ?? NaN);
console.error(`openssl speed rsa2048: ${opensslSign} sign/s`);

const signBytes = Buffer.alloc(100);
const rsa = measure('RSA-2048 sign (node:crypto)', () =>
  createSign('sha256').update(signBytes).sign(sender.privateKey),
);
const pack = measure('pack', () => packOutgoing(payload, options));
const unpack = measure('unpack', () => unpackIncoming(sample.body, sample.headers, receive));
const roundTrip = measure('pack + unpack', () => {
  const packed = packOutgoing(payload, options);
  unpackIncoming(packed.body, packed.headers, receive);
});

console.log(
  JSON.stringify({
    benchmark: 'as2-pack',
    payload_bytes: size,
    body_bytes: sample.body.length,
    pack_ops_per_s: pack.opsPerSecond,
    unpack_ops_per_s: unpack.opsPerSecond,
    pack_unpack_ops_per_s: roundTrip.opsPerSecond,
    pack_cpu_ms: pack.cpuMsPerOp,
    unpack_cpu_ms: unpack.cpuMsPerOp,
    pack_unpack_cpu_ms: roundTrip.cpuMsPerOp,
    rsa2048_sign_ops_per_s: rsa.opsPerSecond,
    rsa2048_sign_cpu_ms: rsa.cpuMsPerOp,
    openssl_speed_rsa2048_sign_per_s: opensslSign,
    // Two private-key operations per pack + unpack: the share of the RSA ceiling reached.
    share_of_rsa_limit: Number(((2 * rsa.cpuMsPerOp) / roundTrip.cpuMsPerOp).toFixed(3)),
  }),
);
