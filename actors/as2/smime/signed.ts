/**
 * multipart/signed (RFC 1847, RFC 8551 §3.5) on top of detached CMS SignedData: building one
 * around an entity, and verifying one over the bytes as received, falling back to CRLF line
 * ends only when the exact bytes do not verify and contain bare LFs (RSSBus/CData).
 */
import type { X509Certificate } from 'node:crypto';
import {
  digestOf,
  signDetached,
  verifyDetached,
  type SignOptions,
  type VerifiedSignature,
} from '../../../pki/cms/signed-data.js';
import { DispositionError, failingAs, fromCms } from '../vocabulary/disposition-error.js';
import { micAlgorithmName, type MicSpelling } from '../../../pki/algorithms/mic-algorithms.js';
import { buildEntity, buildMultipartBody, newBoundary, type Chunks, type HeaderList } from '../mime/build.js';
import type { Headers } from '../mime/headers.js';
import { contentTypeOf, parseEntity, parseMultipart, type MimeEntity } from '../mime/parse.js';
import { encodeBase64Lines } from '../mime/transfer-encoding.js';
import { pkcs7Der } from './pkcs7-mime.js';

export interface SignedEntityOptions extends SignOptions {
  /** How `micalg` is spelt: `sha-256` (rfc5751, default) or `sha256` (rfc3851). */
  micSpelling?: MicSpelling;
}

export interface SignedEntity {
  contentType: string;
  body: Chunks;
  /** Digest of the signed entity with the signing digest: the MIC of a signed message. */
  contentDigest: Buffer;
}

export function buildSignedEntity(entity: Chunks, options: SignedEntityOptions): SignedEntity {
  const contentDigest = digestOf(entity.chunks, options.digest);
  const signature = signDetached(entity.chunks, options, contentDigest);
  const boundary = newBoundary();
  return {
    contentType: multipartSignedType(boundary, options),
    body: buildMultipartBody(boundary, [entity, signaturePart(signature)]),
    contentDigest,
  };
}

/** The second part of multipart/signed: the detached signature, base64. */
export function signaturePart(signature: Buffer): Chunks {
  return buildEntity(
    [
      ['Content-Type', 'application/pkcs7-signature; name=smime.p7s; smime-type=signed-data'],
      ['Content-Transfer-Encoding', 'base64'],
      ['Content-Disposition', 'attachment; filename="smime.p7s"'],
    ],
    encodeBase64Lines(signature),
  );
}

export function multipartSignedType(boundary: string, options: SignedEntityOptions): string {
  const micalg = micAlgorithmName(options.digest, options.micSpelling ?? 'rfc5751');
  return `multipart/signed; protocol="application/pkcs7-signature"; micalg=${micalg}; boundary="${boundary}"`;
}

export function signedEntityHeaders(signed: SignedEntity): HeaderList {
  return [
    ['MIME-Version', '1.0'],
    ['Content-Type', signed.contentType],
  ];
}

export interface VerifiedEntity {
  /** The bytes the signature covers: the first part as received, or its CRLF form if only that verified. */
  signedContent: Buffer;
  /** True when only the CRLF form of an LF-only part verified. */
  canonicalised: boolean;
  signature: VerifiedSignature;
  /** The signed entity, parsed. */
  inner: MimeEntity;
}

/** Verifies a multipart/signed entity given by its headers and body. Throws DispositionError. */
export function verifySignedEntity(
  headers: Headers,
  body: Buffer,
  certificates: readonly X509Certificate[],
): VerifiedEntity {
  const { content, signatureDer } = failingAs(
    'unexpected-processing-error',
    'malformed multipart/signed',
    () => {
      const boundary = contentTypeOf(headers).params.get('boundary');
      if (!boundary) throw new Error('no boundary parameter');
      const { parts } = parseMultipart(body, boundary);
      if (parts.length < 2) throw new Error(`${parts.length} part(s) instead of content and signature`);
      return { content: parts[0]!, signatureDer: parts[1]! };
    },
  );
  const der = failingAs('integrity-check-failed', 'unreadable signature part', () => {
    const part = parseEntity(signatureDer);
    return pkcs7Der(part.headers, part.body);
  });
  let signature: VerifiedSignature;
  let signedContent = content;
  let canonicalised = false;
  try {
    signature = fromCms(() => verifyDetached(der, [content], certificates));
  } catch (error) {
    if (
      !(error instanceof DispositionError) ||
      error.modifier !== 'integrity-check-failed' ||
      !hasBareLf(content)
    ) {
      throw error;
    }
    signedContent = toCrlf(content);
    try {
      signature = fromCms(() => verifyDetached(der, [signedContent], certificates));
    } catch {
      throw error;
    }
    canonicalised = true;
  }
  const inner = failingAs('unexpected-processing-error', 'malformed signed entity', () =>
    parseEntity(signedContent),
  );
  return { signedContent, canonicalised, signature, inner };
}

export function hasBareLf(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) {
    if (at === 0 || bytes[at - 1] !== 0x0d) return true;
  }
  return false;
}

/** RFC 5751 §3.1.1 canonical form: every line ends in CRLF. */
export function toCrlf(bytes: Buffer): Buffer {
  const out: Buffer[] = [];
  let from = 0;
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) {
    if (at > 0 && bytes[at - 1] === 0x0d) continue;
    out.push(bytes.subarray(from, at), Buffer.from('\r'));
    from = at;
  }
  out.push(bytes.subarray(from));
  return Buffer.concat(out);
}
