/**
 * application/pkcs7-mime entities (RFC 8551 §3.2): the MIME wrapper of encrypted and compressed
 * layers, and reading the DER inside one, however its transfer encoding is labelled.
 */
import type { Chunks, HeaderList } from '../mime/build.js';
import type { Headers } from '../mime/headers.js';
import { transferEncodingOf } from '../mime/parse.js';
import {
  decodeBase64,
  decodeTransferEncoding,
  encodeBase64Lines,
  type TransferEncoding,
} from '../mime/transfer-encoding.js';

export type SmimeType = 'enveloped-data' | 'authEnveloped-data' | 'compressed-data';

const fileNames: Record<SmimeType, string> = {
  'enveloped-data': 'smime.p7m',
  'authEnveloped-data': 'smime.p7m',
  'compressed-data': 'smime.p7z',
};

export function pkcs7MimeEntity(
  type: SmimeType,
  der: Buffer | Chunks,
  transferEncoding: TransferEncoding,
): { headers: HeaderList; body: Buffer | Chunks } {
  const name = fileNames[type];
  return {
    headers: [
      ['Content-Type', `application/pkcs7-mime; smime-type=${type}; name=${name}`],
      ['Content-Transfer-Encoding', transferEncoding],
      ['Content-Disposition', `attachment; filename="${name}"`],
    ],
    body:
      transferEncoding === 'binary'
        ? der
        : encodeBase64Lines(Buffer.isBuffer(der) ? der : Buffer.concat(der.chunks as Buffer[], der.length)),
  };
}

/**
 * The DER of a pkcs7-mime or pkcs7-signature part. Some gateways send base64 without saying so
 * (or say binary): a body that does not start like DER (0x30) is tried as base64.
 */
export function pkcs7Der(headers: Headers, body: Buffer): Buffer {
  const decoded = decodeTransferEncoding(body, transferEncodingOf(headers));
  if (decoded[0] === 0x30) return decoded;
  return decodeBase64(decoded);
}
