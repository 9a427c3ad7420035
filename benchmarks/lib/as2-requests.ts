/**
 * The AS2 requests the receive benchmarks send, built before anything is timed: pier's packer,
 * one EDI document per message, a key pair of their own made by `openssl req`.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatMic, packOutgoing, type PackOptions } from '../../actors/as2/index.js';

/** What protects a message: `full` is the shape (compressed, signed, encrypted). */
export const requestProfiles = {
  full: { sign: true, encrypt: true, compress: true },
  signed: { sign: true, encrypt: false, compress: false },
  encrypted: { sign: false, encrypt: true, compress: false },
  plain: { sign: false, encrypt: false, compress: false },
} as const;
export type RequestProfile = (typeof requestProfiles)[keyof typeof requestProfiles];

export function requestProfileOf(name: string): RequestProfile {
  if (!(name in requestProfiles))
    throw new Error(`--profile is one of ${Object.keys(requestProfiles).join(', ')}`);
  return requestProfiles[name as keyof typeof requestProfiles];
}

export interface BenchKeyPair {
  certificatePath: string;
  keyPath: string;
  certificatePem: string;
  keyPem: string;
  certificate: X509Certificate;
  privateKey: KeyObject;
}

/** A self-signed RSA-2048 certificate and its key in `dir` (c.pem, k.pem). */
export function benchKeyPair(dir: string): BenchKeyPair {
  execFileSync(
    'openssl',
    'req -x509 -newkey rsa:2048 -nodes -keyout k.pem -out c.pem -days 30 -subj /CN=bench'.split(' '),
    { cwd: dir, stdio: 'ignore' },
  );
  const certificatePath = path.join(dir, 'c.pem');
  const keyPath = path.join(dir, 'k.pem');
  const certificatePem = readFileSync(certificatePath, 'utf8');
  const keyPem = readFileSync(keyPath, 'utf8');
  return {
    certificatePath,
    keyPath,
    certificatePem,
    keyPem,
    certificate: new X509Certificate(certificatePem),
    privateKey: createPrivateKey(keyPem),
  };
}

export interface BuiltRequest {
  body: Buffer;
  /** The packer's entity headers (Content-Type and the like). */
  headers: Record<string, string>;
  /** The MIC the receipt must return, as `Received-Content-MIC` words it. */
  mic: string;
}

/** ALICE sends to BOB and asks for a synchronous receipt signed with SHA-256. */
export const as2RequestHeaders = {
  'AS2-Version': '1.2',
  'AS2-From': 'ALICE',
  'AS2-To': 'BOB',
  'Disposition-Notification-To': 'edi@alice.example',
  'Disposition-Notification-Options':
    'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
};

/**
 * What the documents are: `text`, EDI text after a counter (not an interchange, so the receiver's
 * EDI envelope reader only tells it apart; every figure recorded before 2026-11-24 used it), or
 * `edifact`, a real interchange whose envelope the receiver reads.
 */
export type BenchDocumentKind = 'text' | 'edifact';

/** The `i`th document: `size` bytes, each different (its number in it), so each MIC is. */
export function benchDocument(i: number, size: number, kind: BenchDocumentKind = 'text'): Buffer {
  if (kind === 'edifact') return edifactDocument(i, size);
  const line = "UNB+UNOC:3+ALICE:14+BOB:14+261121:1200+1'UNH+1+ORDERS:D:96A:UN'BGM+220+4711+9'\n";
  return Buffer.from(`${i}:${line.repeat(Math.ceil(size / line.length))}`.slice(0, size));
}

/**
 * as2-loopback's document, `size` bytes of EDIFACT that starts as an interchange: a UNB, UNH and
 * BGM per line (so a header-heavy one: two thirds of its segments are headers).
 */
export function loopbackDocument(size: number): Buffer {
  const line = "UNB+UNOC:3+ACME:14+GLOBEX:14+261121:1200+1'UNH+1+ORDERS:D:96A:UN'BGM+220+4711+9'\n";
  return Buffer.from(line.repeat(Math.ceil(size / line.length)).slice(0, size));
}

/** An EDIFACT interchange of about `size` bytes (its control number `i`): orders of seven segments each. */
function edifactDocument(i: number, size: number): Buffer {
  const parts = [`UNB+UNOC:3+ALICE:14+BOB:14+261124:0700+${i}'\n`];
  let length = parts[0]!.length;
  let n = 0;
  while (length < size - 20) {
    n += 1;
    const order =
      `UNH+${n}+ORDERS:D:96A:UN'\nBGM+220+${i}-${n}+9'\nDTM+137:20261124:102'\nNAD+BY+5412345000013::9'\n` +
      `LIN+1++4000862141404:SRS'\nQTY+21:48'\nUNT+7+${n}'\n`;
    parts.push(order);
    length += order.length;
  }
  parts.push(`UNZ+${n}+${i}'\n`);
  return Buffer.from(parts.join(''));
}

/** `count` messages of `size` bytes of EDI text, signed and encrypted with `keys` as `profile` says. */
export function buildAs2Requests(
  count: number,
  size: number,
  profile: RequestProfile,
  keys: BenchKeyPair,
  kind: BenchDocumentKind = 'text',
): BuiltRequest[] {
  const packOptions: PackOptions = {
    contentType: 'application/edifact',
    filename: 'orders.edi',
    compress: profile.compress ? 'before-sign' : 'off',
    sign: profile.sign
      ? { algorithm: 'sha-256', certificate: keys.certificate, privateKey: keys.privateKey }
      : null,
    encrypt: profile.encrypt ? { algorithm: 'aes256-cbc', certificate: keys.certificate } : null,
  };
  const built: BuiltRequest[] = [];
  for (let i = 0; i < count; i++) {
    const packed = packOutgoing(benchDocument(i, size, kind), packOptions);
    built.push({ body: packed.body, headers: packed.headers, mic: formatMic(packed.mic) });
  }
  return built;
}
