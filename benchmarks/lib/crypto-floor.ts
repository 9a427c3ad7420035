/**
 * The cost of a received message's cryptography and compression alone, timed with node:crypto
 * and node:zlib in the benchmark's own process, in the same run as the server is measured: what
 * no AS2 receiver can avoid for the message the benchmark sends. The large-message target holds the
 * server's CPU per message against it (within 2×), so that a large message's overhead beyond its
 * cryptography shows whatever the machine's speed.
 *
 * For one message of the benchmark (compressed, signed, encrypted, a signed receipt asked for):
 * the content-encryption key decrypted with the RSA-2048 private key, the body decrypted with
 * AES-256-CBC, the signed entity hashed once with SHA-256 (the signature's digest and the MIC are
 * the same hash), the signature verified with the public key, the document inflated, and the
 * receipt's report hashed and signed with the private key. Each step is timed on its own (the
 * median of a few runs), so the floor does not depend on how the steps are put together.
 */
import {
  constants,
  createCipheriv,
  createDecipheriv,
  createHash,
  privateDecrypt,
  publicEncrypt,
  randomBytes,
  sign,
  verify,
  type KeyObject,
  type X509Certificate,
} from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';

export interface CryptoFloorInput {
  /** The document as sent, before compression. */
  document: Buffer;
  /** The request body's length: what is decrypted. */
  bodyBytes: number;
  /** What the profile does. */
  sign: boolean;
  encrypt: boolean;
  compress: boolean;
  privateKey: KeyObject;
  certificate: X509Certificate;
}

export interface CryptoFloor {
  /** Milliseconds for one message, all steps. */
  total_ms: number;
  steps_ms: Record<string, number>;
}

function medianMs(runs: number, step: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    step();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

export function measureCryptoFloor(input: CryptoFloorInput, runs = 21): CryptoFloor {
  const { document, privateKey, certificate } = input;
  const publicKey = certificate.publicKey;
  const compressed = input.compress ? deflateSync(document) : document;
  // The signed entity carries the compressed data in base64 (or the document as it is).
  const signedEntity = input.compress ? Buffer.from(compressed.toString('base64')) : document;
  const steps: Record<string, () => unknown> = {};
  if (input.encrypt) {
    const key = randomBytes(32);
    const iv = randomBytes(16);
    const wrapped = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING }, key);
    const cipher = createCipheriv('aes-256-cbc', key, iv);
    const sealed = Buffer.concat([cipher.update(Buffer.alloc(input.bodyBytes)), cipher.final()]);
    // One RSA private-key operation (OAEP here: Node 20 refuses PKCS#1 v1.5 decryption, which
    // the receiver unpads itself; the private-key operation is the cost either way).
    steps.rsa_decrypt_key = () =>
      privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING }, wrapped);
    steps.aes_decrypt = () => {
      const decipher = createDecipheriv('aes-256-cbc', key, iv);
      return Buffer.concat([decipher.update(sealed), decipher.final()]);
    };
  }
  if (input.sign) {
    const signedAttributes = randomBytes(120);
    const signature = sign('sha256', signedAttributes, privateKey);
    steps.sha256_signed_entity = () => createHash('sha256').update(signedEntity).digest();
    steps.rsa_verify = () => verify('sha256', signedAttributes, publicKey, signature);
  } else {
    steps.sha256_mic = () => createHash('sha256').update(signedEntity).digest();
  }
  if (input.compress) steps.inflate = () => inflateSync(compressed);
  // The signed receipt: its report (about a kilobyte) hashed and signed.
  const report = randomBytes(1024);
  steps.rsa_sign_receipt = () => sign('sha256', report, privateKey);
  const stepsMs: Record<string, number> = {};
  let total = 0;
  for (const [name, step] of Object.entries(steps)) {
    step();
    const ms = medianMs(runs, step);
    stepsMs[name] = round(ms);
    total += ms;
  }
  return { total_ms: round(total), steps_ms: stepsMs };
}
