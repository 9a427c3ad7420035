/**
 * Packing an outgoing AS2 message: payload entity → compress (before signing) → sign →
 * compress (after signing) → encrypt, each layer a MIME entity around the previous one
 * (RFC 4130 §2.4, RFC 5402). Returns the HTTP body, the headers that describe it, and the MIC
 * the partner's receipt must echo. A document too large to hold in memory takes
 * stream/pack-streamed.ts, which builds the same bytes from a file.
 */
import type { KeyObject, X509Certificate } from 'node:crypto';
import { compress as compressCms } from '../../pki/cms/compressed-data.js';
import { encryptEnvelopedChunks } from '../../pki/cms/enveloped-data.js';
import type { MqvOriginator } from '../../pki/cms/key-agreement.js';
import type { KeyAgreementChoice } from '../../pki/algorithms/key-agreement-algorithms.js';
import { buildEntity, chunksOf, joinChunks, type Chunks, type HeaderList } from './mime/build.js';
import { formatFilename } from './mime/parameters.js';
import { encodeBase64Lines, type TransferEncoding } from './mime/transfer-encoding.js';
import { computeMic, type Mic } from './mic.js';
import { pkcs7MimeEntity } from './smime/pkcs7-mime.js';
import { buildSignedEntity, type SignedEntityOptions } from './smime/signed.js';
import {
  contentEncryptionAlgorithms,
  type ContentEncryption,
  type KeyTransport,
  type SignatureScheme,
} from '../../pki/algorithms/encryption-algorithms.js';
import { micAlgorithms, type MicAlgorithm, type MicSpelling } from '../../pki/algorithms/mic-algorithms.js';

export interface PackOptions {
  /** The business document's Content-Type. Default `application/octet-stream`. */
  contentType?: string;
  filename?: string | null;
  /** `quoted` (default) or `token` (bare, for partners that keep quotes in the name). */
  filenameQuoting?: 'quoted' | 'token';
  /** Default `off`. Without signing, either position means one compressed layer. */
  compress?: 'off' | 'before-sign' | 'after-sign';
  sign?: {
    algorithm: MicAlgorithm;
    certificate: X509Certificate;
    privateKey: KeyObject;
    /** Default `rsa-pkcs1`. */
    scheme?: SignatureScheme;
    /** Default true; IBM Sterling partners often need false. */
    signedAttributes?: boolean;
    /** RFC 6211 attribute; default true. */
    algorithmProtection?: boolean;
    signingTime?: Date;
  } | null;
  encrypt?: {
    algorithm: ContentEncryption;
    certificate: X509Certificate;
    /** Default `rsa-pkcs1`. */
    keyTransport?: KeyTransport;
    /** For an EC certificate; default `ecdh`. `ecmqv` needs `originator`. */
    keyAgreement?: KeyAgreementChoice;
    /** 1-pass ECMQV: our static EC key on the certificate's curve, with its certificate. */
    originator?: MqvOriginator | null;
  } | null;
  /** Content-Transfer-Encoding of the document part. Default `binary` (Mendelson refuses base64). */
  transferEncoding?: TransferEncoding;
  /** Spelling of `micalg`: `sha-256` (rfc5751, default) or `sha256` (rfc3851). */
  micSpelling?: MicSpelling;
  /** MIC algorithm of an unsigned message's receipt; a signed one uses the signing digest. Default sha-256. */
  micAlgorithm?: MicAlgorithm;
  /** as2bis (draft-ietf-ediint-rfc4130bis): refuse to generate SHA-1, MD5, 3DES. */
  modernOnly?: boolean;
}

export interface PackedMessage {
  /** The HTTP body, joined on first use; write `bodyChunks` to a socket or file to skip that copy. */
  readonly body: Buffer;
  readonly bodyChunks: readonly Buffer[];
  readonly bodyLength: number;
  /** Headers of the outermost entity, to send as HTTP headers (Content-Type first). */
  headers: Record<string, string>;
  contentType: string;
  mic: Mic;
}

interface Entity {
  headers: HeaderList;
  body: Buffer | Chunks;
}

/** Headers of the innermost entity, the document's. */
export function payloadHeaders(options: PackOptions): HeaderList {
  const headers: [string, string][] = [
    ['Content-Type', options.contentType ?? 'application/octet-stream'],
    ['Content-Transfer-Encoding', options.transferEncoding ?? 'binary'],
  ];
  if (options.filename) {
    headers.push([
      'Content-Disposition',
      `attachment${formatFilename(options.filename, options.filenameQuoting)}`,
    ]);
  }
  return headers;
}

export function packOutgoing(payload: Buffer, options: PackOptions = {}): PackedMessage {
  checkModern(options);
  let current: Entity = {
    headers: payloadHeaders(options),
    body: options.transferEncoding === 'base64' ? encodeBase64Lines(payload) : payload,
  };
  const compression = options.compress ?? 'off';
  const compressLayer = () => {
    const der = compressCms(buildEntity(current.headers, current.body).chunks);
    current = pkcs7MimeEntity('compressed-data', der, 'binary');
  };
  const sign = options.sign ?? null;
  if (compression === 'before-sign' || (compression === 'after-sign' && !sign)) compressLayer();
  let mic: Mic | null = null;
  if (sign) {
    const signed = buildSignedEntity(
      buildEntity(current.headers, current.body),
      signingOptions(sign, options),
    );
    mic = { algorithm: sign.algorithm, digest: signed.contentDigest };
    current = { headers: [['Content-Type', signed.contentType]], body: signed.body };
    if (compression === 'after-sign') compressLayer();
  }
  if (options.encrypt) {
    const inner = buildEntity(current.headers, current.body);
    mic ??= computeMic(inner.chunks, options.micAlgorithm ?? 'sha-256');
    const der = encryptEnvelopedChunks(inner.chunks, options.encrypt);
    const gcm = contentEncryptionAlgorithms[options.encrypt.algorithm].mode === 'gcm';
    current = pkcs7MimeEntity(gcm ? 'authEnveloped-data' : 'enveloped-data', der, 'binary');
  }
  const body = chunksOf(current.body);
  // Neither signed nor encrypted: the MIC covers the content without headers (RFC 4130 §7.3.1).
  mic ??= computeMic(body.chunks, options.micAlgorithm ?? 'sha-256');
  const headers: Record<string, string> = { 'MIME-Version': '1.0' };
  for (const [name, value] of current.headers) headers[name] = value;
  let joined: Buffer | null = null;
  return {
    get body() {
      joined ??= joinChunks(body);
      return joined;
    },
    bodyChunks: body.chunks,
    bodyLength: body.length,
    headers,
    contentType: headers['Content-Type']!,
    mic,
  };
}

/** The signing layer's options from the pack options (both the in-memory and the streamed path). */
export function signingOptions(
  sign: NonNullable<PackOptions['sign']>,
  options: Pick<PackOptions, 'micSpelling'>,
): SignedEntityOptions {
  return {
    digest: sign.algorithm,
    scheme: sign.scheme,
    certificate: sign.certificate,
    privateKey: sign.privateKey,
    signedAttributes: sign.signedAttributes,
    algorithmProtection: sign.algorithmProtection,
    signingTime: sign.signingTime,
    micSpelling: options.micSpelling,
  };
}

export class LegacyAlgorithmError extends Error {
  constructor(what: string) {
    super(`${what} is not generated under the as2bis rules`);
    this.name = 'LegacyAlgorithmError';
  }
}

export function checkModern(options: PackOptions): void {
  if (!options.modernOnly) return;
  if (options.sign && micAlgorithms[options.sign.algorithm].legacy)
    throw new LegacyAlgorithmError(options.sign.algorithm);
  if (options.micAlgorithm && micAlgorithms[options.micAlgorithm].legacy)
    throw new LegacyAlgorithmError(options.micAlgorithm);
  if (options.encrypt && contentEncryptionAlgorithms[options.encrypt.algorithm].legacy) {
    throw new LegacyAlgorithmError(options.encrypt.algorithm);
  }
}
