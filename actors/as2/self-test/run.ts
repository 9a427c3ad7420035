/**
 * The AS2 library's self-test: each captured message of cases.ts is decrypted, its signature
 * verified over the bytes as received, and its MIC and document compared with what the
 * sending implementation produced. It proves that this installation (its Node.js, OpenSSL and
 * pier's own MIME and CMS code) reads partners' messages as they were meant.
 */
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { unpackIncoming } from '../unpack.js';
import { selfTestCases, type SelfTestCase } from './cases.js';

/**
 * Where the captures are. Run from the sources (this module is TypeScript), they are the
 * repository's test fixtures. In the build (dist/, what a release installs) they are the copies
 * `npm run build` puts beside this module in test-captures/: public test captures of other AS2
 * products, with the two private keys those projects publish for them, which the self-test needs
 * to decrypt the captures and loads in memory only (test-captures/README.md says so to whoever
 * finds them). They are never a certificate pier offers or uses with a partner.
 */
export const capturesDirectory = import.meta.filename.endsWith('.ts')
  ? path.resolve(import.meta.dirname, '../../../test/fixtures')
  : path.join(import.meta.dirname, 'test-captures');

export interface SelfTestResult {
  passed: number;
  /** `<file>: <what went wrong>`, one per failing case. */
  failures: string[];
}

/** A captured HTTP request: header lines (CRLF), a blank line, then the body. */
function splitHttp(bytes: Buffer): { headers: Record<string, string>; body: Buffer } {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error('no blank line after the headers');
  const headers: Record<string, string> = {};
  for (const line of bytes.subarray(0, end).toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: bytes.subarray(end + 4) };
}

const encryptedHeaders = {
  'content-type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m',
};

async function runCase(directory: string, c: SelfTestCase): Promise<string | undefined> {
  const read = (name: string) => readFile(path.join(directory, name));
  const raw = await read(c.file);
  const { headers, body } = c.form === 'http' ? splitHttp(raw) : { headers: encryptedHeaders, body: raw };
  const message = unpackIncoming(body, headers, {
    decryptionKeys: [
      {
        certificate: new X509Certificate(await read(c.decryption.certificate)),
        privateKey: createPrivateKey(await read(c.decryption.key)),
      },
    ],
    verificationCerts: [new X509Certificate(await read(c.signer))],
    requireSigned: true,
    requireEncrypted: true,
    micAlgorithm: 'sha-256',
  });
  const mic = message.mic.digest.toString('base64');
  if (mic !== c.mic) return `MIC ${mic}, the sender's was ${c.mic}`;
  const document = createHash('sha256').update(message.payload).digest('hex');
  if (document !== c.documentSha256) return `document SHA-256 ${document}, expected ${c.documentSha256}`;
  return undefined;
}

/** Runs every case; a case that throws (a missing file, a refused signature) fails with its words. */
export async function runAs2SelfTest(directory = capturesDirectory): Promise<SelfTestResult> {
  const failures: string[] = [];
  for (const c of selfTestCases) {
    const problem = await runCase(directory, c).catch((error: unknown) =>
      error instanceof Error ? error.message : String(error),
    );
    if (problem !== undefined) failures.push(`${c.file}: ${problem}`);
  }
  return { passed: selfTestCases.length - failures.length, failures };
}
