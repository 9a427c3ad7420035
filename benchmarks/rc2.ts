/**
 * RC2-CBC decryption of EnvelopedData content: pier's own RC2 (pki/cms/rc2.ts,
 * through decryptContent as the receiver calls it) against the node-forge code it replaced
 * (the same calls decryptRc2 made: binary strings in, one string out). `openssl enc -rc2-cbc`
 * (legacy provider) encrypts random bytes with a 128-bit key; both decrypt them and must give
 * the plaintext back. node-forge took more than 160 s for 1.5 MiB, so it only runs on sizes up
 * to --forge-max-mib.
 * Options: --mib <list> (default 1.5,64), --forge-max-mib <n> (default 1.5; 0 skips it).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import forge from 'node-forge';
import { decryptContent, type ContentAlgorithm } from '../pki/cms/content-encryption.js';

const { values } = parseArgs({
  options: { mib: { type: 'string' }, 'forge-max-mib': { type: 'string' } },
});
const sizes = (values.mib ?? '1.5,64').split(',').map(Number);
const forgeMaxMib = Number(values['forge-max-mib'] ?? 1.5);

const dir = mkdtempSync(path.join(os.tmpdir(), 'pier-bench-rc2-'));

function opensslEncrypt(key: Buffer, iv: Buffer, plaintext: Buffer): Buffer {
  writeFileSync(path.join(dir, 'plain.bin'), plaintext);
  execFileSync(
    'openssl',
    [
      ...['enc', '-rc2-cbc', '-K', key.toString('hex'), '-iv', iv.toString('hex')],
      ...['-in', 'plain.bin', '-out', 'cipher.bin', '-provider', 'legacy', '-provider', 'default'],
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  return readFileSync(path.join(dir, 'cipher.bin'));
}

/** What content-encryption.ts did for RC2 before rc2.ts. */
function forgeDecrypt(key: Buffer, bits: number, iv: Buffer, ciphertext: Buffer): Buffer {
  const cipher = forge.rc2.createDecryptionCipher(forge.util.createBuffer(key.toString('binary')), bits);
  cipher.start(forge.util.createBuffer(iv.toString('binary')));
  cipher.update(forge.util.createBuffer(ciphertext.toString('binary')));
  if (!cipher.finish()) throw new Error('RC2 padding check failed');
  return Buffer.from(cipher.output.getBytes(), 'binary');
}

function timed(run: () => Buffer, plaintext: Buffer): number {
  const started = process.hrtime.bigint();
  const out = run();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (!out.equals(plaintext)) throw new Error('decrypted bytes differ from the plaintext');
  return ms;
}

const figures: Record<string, number | null> = {};
try {
  for (const mib of sizes) {
    const plaintext = randomBytes(Math.round(mib * 1024 * 1024));
    const key = randomBytes(16);
    const iv = randomBytes(8);
    const ciphertext = opensslEncrypt(key, iv, plaintext);
    const algorithm: ContentAlgorithm = { name: 'rc2-cbc', keyBytes: 16, iv, tagBytes: 0, rc2Bits: 128 };
    const pier = timed(() => decryptContent(algorithm, key, [ciphertext]), plaintext);
    figures[`pier_${mib}_mib_ms`] = Math.round(pier);
    figures[`pier_${mib}_mib_mb_per_s`] = Math.round(plaintext.length / 1e6 / (pier / 1000));
    console.error(`${mib} MiB: pier ${pier.toFixed(0)} ms`);
    if (mib <= forgeMaxMib) {
      const old = timed(() => forgeDecrypt(key, 128, iv, ciphertext), plaintext);
      figures[`node_forge_${mib}_mib_ms`] = Math.round(old);
      console.error(`${mib} MiB: node-forge ${old.toFixed(0)} ms`);
    } else figures[`node_forge_${mib}_mib_ms`] = null;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(figures));
