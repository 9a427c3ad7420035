/**
 * A detached CMS SignedData written by hand for tests, independent of pier's ASN.1 writer: a
 * few lines of DER and node:crypto's signing. It builds what other implementations write and
 * openssl will not, such as RSASSA-PSS with its parameters absent (pyas2lib).
 */
import { createHash, sign, constants, type KeyObject, type X509Certificate } from 'node:crypto';

/** One DER element: tag byte, definite length, contents. */
export function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  const n = body.length;
  const length =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  if (n >= 0x10000) throw new Error('too long for this test encoder');
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

export function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const arc of rest) {
    const group = [arc & 0x7f];
    for (let v = arc >>> 7; v > 0; v >>>= 7) group.unshift((v & 0x7f) | 0x80);
    bytes.push(...group);
  }
  return tlv(0x06, Buffer.from(bytes));
}

const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);

export const testOids = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  rsassaPss: '1.2.840.113549.1.1.10',
  sha1: '1.3.14.3.2.26',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha384: '2.16.840.1.101.3.4.2.2',
  sha512: '2.16.840.1.101.3.4.2.3',
  'sha3-256': '2.16.840.1.101.3.4.2.8',
  'sha3-384': '2.16.840.1.101.3.4.2.9',
  'sha3-512': '2.16.840.1.101.3.4.2.10',
  'ecdsa-with-sha3-256': '2.16.840.1.101.3.4.3.10',
  'ecdsa-with-sha3-384': '2.16.840.1.101.3.4.3.11',
  'ecdsa-with-sha3-512': '2.16.840.1.101.3.4.3.12',
};

export interface HandSignOptions {
  certificate: X509Certificate;
  key: KeyObject;
  /** node:crypto hash name, also the SignerInfo's digestAlgorithm. */
  hash: 'sha1' | 'sha256' | 'sha384' | 'sha512';
  /** PSS salt length used when signing. */
  saltLength: number;
  /** The DER of the signatureAlgorithm's parameters; absent when undefined. */
  pssParameters?: Buffer;
}

/** Detached SignedData over `content` with signed attributes (contentType, messageDigest), signed RSASSA-PSS. */
export function handSignedPss(content: Buffer, o: HandSignOptions): Buffer {
  return handSigned(content, {
    certificate: o.certificate,
    hash: o.hash,
    signatureId: seq(oid(testOids.rsassaPss), ...(o.pssParameters ? [o.pssParameters] : [])),
    sign: (data) =>
      sign(o.hash, data, { key: o.key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: o.saltLength }),
  });
}

/** Detached SignedData signed ECDSA with a SHA-3 digest (openssl 3.0's cms cannot write it). */
export function handSignedEcdsaSha3(
  content: Buffer,
  o: { certificate: X509Certificate; key: KeyObject; hash: 'sha3-256' | 'sha3-384' | 'sha3-512' },
): Buffer {
  return handSigned(content, {
    certificate: o.certificate,
    hash: o.hash,
    // RFC 5758 §3.2: ECDSA identifiers have absent parameters.
    signatureId: seq(oid(testOids[`ecdsa-with-${o.hash}`])),
    sign: (data) => sign(o.hash, data, o.key),
  });
}

function handSigned(
  content: Buffer,
  o: {
    certificate: X509Certificate;
    hash: 'sha1' | 'sha256' | 'sha384' | 'sha512' | 'sha3-256' | 'sha3-384' | 'sha3-512';
    signatureId: Buffer;
    sign: (data: Buffer) => Buffer;
  },
): Buffer {
  const digest = createHash(o.hash).update(content).digest();
  const attributes = set(
    seq(oid(testOids.contentType), set(oid(testOids.data))),
    seq(oid(testOids.messageDigest), set(tlv(0x04, digest))),
  );
  const signature = o.sign(attributes);
  const digestId = seq(oid(testOids[o.hash]));
  const signatureId = o.signatureId;
  // issuerAndSerialNumber from the certificate's own DER: tbs = cert[0]; serial and issuer inside.
  const issuerAndSerial = seq(...issuerAndSerialOf(o.certificate));
  const signedAttrs = Buffer.concat([Buffer.from([0xa0]), attributes.subarray(1)]);
  const signerInfo = seq(
    tlv(0x02, Buffer.from([1])),
    issuerAndSerial,
    digestId,
    signedAttrs,
    signatureId,
    tlv(0x04, signature),
  );
  const signedData = seq(
    tlv(0x02, Buffer.from([1])),
    set(digestId),
    seq(oid(testOids.data)),
    tlv(0xa0, Buffer.from(o.certificate.raw)),
    set(signerInfo),
  );
  return seq(oid(testOids.signedData), tlv(0xa0, signedData));
}

/** Reads one DER element's header at `at`: where its contents start and end. */
function element(der: Buffer, at: number): { start: number; end: number } {
  let length = der[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let i = 0; i < count; i++) length = (length << 8) | der[start + i]!;
    start += count;
  }
  return { start, end: start + length };
}

/** [issuer Name, serial INTEGER] of a certificate, as DER elements (IssuerAndSerialNumber's order). */
function issuerAndSerialOf(certificate: X509Certificate): [Buffer, Buffer] {
  const der = Buffer.from(certificate.raw);
  const tbs = element(der, element(der, 0).start);
  let at = tbs.start;
  if (der[at] === 0xa0) at = element(der, at).end; // version
  const serial = der.subarray(at, element(der, at).end);
  at = element(der, at).end;
  at = element(der, at).end; // signature algorithm
  const issuer = der.subarray(at, element(der, at).end);
  return [issuer, serial];
}
