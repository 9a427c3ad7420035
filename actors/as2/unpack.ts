/**
 * Unpacking a received AS2 message, layer by layer in whatever order the partner used
 * (encrypted → signed → compressed, compressed before or after signing), into the business
 * document, what protected it, and the MIC for the receipt. Every failure is a DispositionError
 * carrying the MDN modifier; nothing else escapes.
 */
import type { X509Certificate } from 'node:crypto';
import { readContentInfo } from '../../pki/cms/content-info.js';
import { compressedChunks, decompress, inflateChunks } from '../../pki/cms/compressed-data.js';
import type { DeflatedDocument } from '../../protocol/payload-wire.js';
import {
  decryptEnveloped,
  type ContentKeyDelivery,
  type Decrypted,
  type DecryptionKey,
} from '../../pki/cms/enveloped-data.js';
import { parseDispositionNotificationOptions } from './disposition-options.js';
import { Headers } from './mime/headers.js';
import { contentTypeOf, filenameOf, parseEntity, transferEncodingOf } from './mime/parse.js';
import { decodeTransferEncoding } from './mime/transfer-encoding.js';
import { computeMic, type Mic } from './mic.js';
import { pkcs7Der } from './smime/pkcs7-mime.js';
import { verifySignedEntity } from './smime/signed.js';
import { peekInflated, type DeferredInflate } from './stream/open-compressed.js';
import { DispositionError, failingAs, fromCms } from './vocabulary/disposition-error.js';
import type { ErrorModifier } from './vocabulary/dispositions.js';
import {
  contentEncryptionAlgorithms,
  type ReadableContentEncryption,
  type SignatureScheme,
} from '../../pki/algorithms/encryption-algorithms.js';
import { micAlgorithms, type MicAlgorithm } from '../../pki/algorithms/mic-algorithms.js';
import { oidName, oids } from '../../pki/oids.js';

export interface UnpackOptions {
  /** Our certificates with their keys that a partner may encrypt to (current and rolled over). */
  decryptionKeys: readonly DecryptionKey[];
  /** The partner's current signing certificates. */
  verificationCerts: readonly X509Certificate[];
  /**
   * The partner's certificates where a 1-pass ECMQV message may name its originator's static key
   * (its encryption and signature certificates). Default `verificationCerts`.
   */
  partnerCertificates?: readonly X509Certificate[];
  requireSigned?: boolean;
  requireEncrypted?: boolean;
  /** Refuse SHA-1 and MD5 signatures and 3DES and RC2 encryption (insufficient-message-security). */
  requireModern?: boolean;
  /**
   * The MIC algorithm for the receipt. Default: the partner's `signed-receipt-micalg` choice
   * (from the headers), else the signature's digest, else sha-256.
   */
  micAlgorithm?: MicAlgorithm;
  /** Largest payload accepted after decompression, in bytes. Default 1 GiB. */
  maxPayloadBytes?: number;
  /**
   * Leave an innermost CompressedData whose entity is the document (no further layer or
   * transfer encoding) uninflated: `payload` is then empty and `deferredInflate` says how to
   * inflate the document as a stream (stream/open-compressed.ts), for large messages.
   */
  deferInnermostInflate?: boolean;
  /**
   * When the innermost layer is a CompressedData whose inflated entity ends in the document itself
   * (no transfer encoding to undo), say so in `compressedDocument`: the store may then keep the
   * partner's zlib stream instead of the inflated document.
   */
  keepInnermostCompressed?: boolean;
}

export type Layer = 'encrypted' | 'signed' | 'compressed';

export interface UnpackedMessage {
  payload: Buffer;
  /** The business document's Content-Type as the partner sent it. */
  contentType: string;
  filename: string | null;
  payloadHeaders: Headers;
  /** Outermost first. */
  layers: Layer[];
  signature: null | {
    digestAlgorithm: MicAlgorithm;
    scheme: SignatureScheme;
    signer: X509Certificate;
    signedAttributes: boolean;
    algorithmProtection: boolean;
    /**
     * RSASSA-PSS written without parameters verified only under the liberal reading (the
     * SignerInfo's digest for hash and MGF1, the salt length the signature carries), not RFC
     * 4055's SHA-1 defaults.
     */
    lenientPss: boolean;
    /** The salt length an RSASSA-PSS signature verified with; null for other schemes. */
    pssSaltLength: number | null;
    /** Only the CRLF form of an LF-only signed entity verified. */
    canonicalised: boolean;
    /** The signed entity (headers and body) the signature covers. */
    signedContent: Buffer;
  };
  encryption: null | {
    algorithm: ReadableContentEncryption;
    keyTransport: ContentKeyDelivery;
    recipient: X509Certificate;
  };
  /** Where compression sat relative to the signature; `unsigned` when there was no signature. */
  compression: null | 'before-sign' | 'after-sign' | 'unsigned';
  mic: Mic;
  /** With `deferInnermostInflate`: the document still to be inflated, in place of `payload`. */
  deferredInflate?: DeferredInflate;
  /** With `keepInnermostCompressed`: the zlib stream `payload` was inflated from. */
  compressedDocument?: DeflatedDocument;
}

/** Deepest nesting of layers accepted; real messages have at most three. */
const maxLayers = 6;

/**
 * `outer`: the body's EnvelopedData already decrypted (a large message decrypted as it was read
 * from the store, stream/open-enveloped.ts); `body` is then not read.
 */
export function unpackIncoming(
  body: Buffer,
  headers: Headers | Readonly<Record<string, string | readonly string[] | number | undefined>>,
  options: UnpackOptions,
  outer?: Decrypted,
): UnpackedMessage {
  try {
    return unpack(body, headers, options, outer);
  } catch (error) {
    if (error instanceof DispositionError) throw error;
    throw new DispositionError(
      'unexpected-processing-error',
      `unpacking failed: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

function modifierForSmimeType(smimeType: string): ErrorModifier {
  if (smimeType.startsWith('compressed')) return 'decompression-failed';
  if (smimeType.includes('enveloped')) return 'decryption-failed';
  return 'unexpected-processing-error';
}

function unpack(
  body: Buffer,
  headersIn: Headers | Readonly<Record<string, string | readonly string[] | number | undefined>>,
  options: UnpackOptions,
  outer: Decrypted | undefined,
): UnpackedMessage {
  const httpHeaders =
    headersIn instanceof Headers
      ? headersIn
      : failingAs('unexpected-processing-error', 'unreadable headers', () => Headers.fromRecord(headersIn));
  const maxBytes = options.maxPayloadBytes ?? 1024 ** 3;
  const layers: Layer[] = [];
  let signature: UnpackedMessage['signature'] = null;
  let encryption: UnpackedMessage['encryption'] = null;
  let decryptedEntity: Buffer | null = null;
  let signatureDigest: Buffer | null = null;
  let current = { headers: httpHeaders, body };
  let deferredInflate: DeferredInflate | undefined;
  /** The last CompressedData inflated: its zlib stream and what it inflated to. */
  let lastInflated: { chunks: Buffer[]; inflated: Buffer } | null = null;
  const decrypted = (decrypted: Decrypted) => {
    encryption ??= {
      algorithm: decrypted.algorithm,
      keyTransport: decrypted.keyTransport,
      recipient: decrypted.recipient,
    };
    decryptedEntity ??= decrypted.content;
    lastInflated = null;
    // Garbage from a wrong key that slipped past the padding check (about one CBC decryption in
    // 270) lands here too. Most is no header section; garbage that starts with a line break is an
    // entity without headers, which would pass as text/plain: every AS2 sender names the type of
    // what it encrypts, so an entity without a Content-Type is refused as undecryptable too.
    current = failingAs('decryption-failed', 'the decrypted content is not a MIME entity', () =>
      parseEntity(decrypted.content),
    );
    if (!current.headers.has('content-type')) {
      throw new DispositionError(
        'decryption-failed',
        'the decrypted content has no Content-Type: not a MIME entity',
      );
    }
    layers.push('encrypted');
  };
  if (outer) decrypted(outer);
  for (;;) {
    if (layers.length > maxLayers) {
      throw new DispositionError('unexpected-processing-error', `more than ${maxLayers} nested layers`);
    }
    const type = failingAs('unexpected-processing-error', 'unreadable Content-Type', () =>
      contentTypeOf(current.headers),
    );
    if (type.value === 'application/pkcs7-mime' || type.value === 'application/x-pkcs7-mime') {
      const modifier = modifierForSmimeType((type.params.get('smime-type') ?? '').toLowerCase());
      const der = failingAs(modifier, 'unreadable application/pkcs7-mime body', () =>
        pkcs7Der(current.headers, current.body),
      );
      const cmsType = failingAs(modifier, 'unreadable CMS', () => readContentInfo(der).type);
      if (cmsType === oids.envelopedData || cmsType === oids.authEnvelopedData) {
        decrypted(
          fromCms(() =>
            decryptEnveloped(
              der,
              options.decryptionKeys,
              options.partnerCertificates ?? options.verificationCerts,
            ),
          ),
        );
      } else if (cmsType === oids.compressedData) {
        const peeked = options.deferInnermostInflate
          ? peekInflated(
              fromCms(() => compressedChunks(der)),
              maxBytes,
            )
          : null;
        if (peeked) {
          // The entity is the document: the loop ends on its headers; its body is inflated later.
          deferredInflate = peeked.deferred;
          lastInflated = null;
          current = { headers: peeked.headers, body: Buffer.alloc(0) };
          layers.push('compressed');
          continue;
        }
        const chunks = options.keepInnermostCompressed ? fromCms(() => compressedChunks(der)) : null;
        const inflated = fromCms(() =>
          chunks ? inflateChunks(chunks, { maxBytes }) : decompress(der, { maxBytes }),
        );
        lastInflated = chunks && { chunks, inflated };
        current = failingAs('decompression-failed', 'the decompressed content is not a MIME entity', () =>
          parseEntity(inflated),
        );
        layers.push('compressed');
      } else {
        throw new DispositionError(
          'unexpected-processing-error',
          `unsupported CMS content ${oidName(cmsType)}`,
        );
      }
    } else if (type.value === 'multipart/signed') {
      const verified = verifySignedEntity(current.headers, current.body, options.verificationCerts);
      if (!signature) {
        signature = {
          digestAlgorithm: verified.signature.digestAlgorithm,
          scheme: verified.signature.signatureAlgorithm.scheme,
          signer: verified.signature.signer,
          signedAttributes: verified.signature.signedAttributes,
          algorithmProtection: verified.signature.algorithmProtection,
          lenientPss: verified.signature.lenientPss,
          pssSaltLength: verified.signature.signatureAlgorithm.pss?.saltLength ?? null,
          canonicalised: verified.canonicalised,
          signedContent: verified.signedContent,
        };
        signatureDigest = verified.signature.contentDigest;
      }
      current = verified.inner;
      layers.push('signed');
      lastInflated = null;
    } else {
      break;
    }
  }
  if (options.requireEncrypted && !encryption) {
    throw new DispositionError(
      'insufficient-message-security',
      'the partner must encrypt, and this message is not encrypted',
    );
  }
  if (options.requireSigned && !signature) {
    throw new DispositionError(
      'insufficient-message-security',
      'the partner must sign, and this message is not signed',
    );
  }
  if (options.requireModern) {
    // TypeScript narrows these to their initial null across the loop's callbacks.
    const used = { signature, encryption } as Pick<UnpackedMessage, 'signature' | 'encryption'>;
    refuseLegacy(used.signature?.digestAlgorithm ?? null, used.encryption?.algorithm ?? null);
  }
  const payload = failingAs('unexpected-processing-error', 'undecodable payload', () =>
    decodeTransferEncoding(current.body, transferEncodingOf(current.headers)),
  );
  const micAlgorithm =
    options.micAlgorithm ??
    parseDispositionNotificationOptions(httpHeaders.get('disposition-notification-options')).chosen
      ?.algorithm ??
    signature?.digestAlgorithm ??
    'sha-256';
  let mic: Mic;
  if (signature) {
    mic =
      micAlgorithm === signature.digestAlgorithm && signatureDigest
        ? { algorithm: micAlgorithm, digest: signatureDigest }
        : computeMic(signature.signedContent, micAlgorithm);
  } else {
    mic = computeMic(decryptedEntity ?? body, micAlgorithm);
  }
  const compressedDocument = lastInflated && documentAtEnd(lastInflated, payload);
  return {
    payload,
    contentType: current.headers.get('content-type') ?? 'application/octet-stream',
    filename:
      filenameOf(current.headers) ?? (current.headers === httpHeaders ? null : filenameOf(httpHeaders)),
    payloadHeaders: current.headers,
    layers,
    signature,
    encryption,
    compression: compressionOrder(layers),
    mic,
    ...(deferredInflate ? { deferredInflate } : {}),
    ...(compressedDocument ? { compressedDocument } : {}),
  };
}

/**
 * The document as the last CompressedData's zlib stream, when the document is the inflated
 * entity's body as it stands (a view of its end, no transfer encoding undone); else null.
 */
function documentAtEnd(
  last: { chunks: Buffer[]; inflated: Buffer },
  payload: Buffer,
): DeflatedDocument | null {
  const { inflated } = last;
  const skip = payload.byteOffset - inflated.byteOffset;
  const endsTogether =
    payload.buffer === inflated.buffer && skip >= 0 && skip + payload.length === inflated.length;
  return endsTogether ? { chunks: last.chunks, skip, size: payload.length } : null;
}

/** The partner's profile accepts only modern algorithms (inbound_algorithms: modern). */
function refuseLegacy(digest: MicAlgorithm | null, encryption: ReadableContentEncryption | null): void {
  if (digest && micAlgorithms[digest].legacy)
    throw new DispositionError(
      'insufficient-message-security',
      `the partner must use modern algorithms, and this message is signed with ${digest}`,
    );
  if (encryption && (encryption === 'rc2-cbc' || contentEncryptionAlgorithms[encryption].legacy))
    throw new DispositionError(
      'insufficient-message-security',
      `the partner must use modern algorithms, and this message is encrypted with ${encryption}`,
    );
}

function compressionOrder(layers: Layer[]): UnpackedMessage['compression'] {
  const compressed = layers.indexOf('compressed');
  if (compressed < 0) return null;
  const signed = layers.indexOf('signed');
  if (signed < 0) return 'unsigned';
  // Outermost first: a signature outside the compression means it was compressed, then signed.
  return signed < compressed ? 'before-sign' : 'after-sign';
}
