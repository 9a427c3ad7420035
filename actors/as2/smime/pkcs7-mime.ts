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
 * The DER of a pkcs7-mime or pkcs7-signature part, whatever its label says. Gateways send base64
 * marked binary and binary marked base64: a ContentInfo starts with SEQUENCE (0x30) and a long or
 * indefinite length (0x80 and above), which base64 text never does, so that decides.
 */
export function pkcs7Der(headers: Headers, body: Buffer): Buffer {
  if (looksLikeDer(body)) return body;
  const decoded = decodeTransferEncoding(body, transferEncodingOf(headers));
  return looksLikeDer(decoded) ? decoded : decodeBase64(decoded);
}

function looksLikeDer(bytes: Buffer): boolean {
  return bytes[0] === 0x30 && (bytes[1] ?? 0) >= 0x80;
}
