/**
 * Building the AS2 request for one delivery from the partner's profile: the packed body
 * (compress → sign → encrypt) and the AS2 headers (RFC 4130 §6), with the Message-ID given
 * (a redelivery resends the one used before).
 */
import type { As2OutboundContext } from '../../runtime/channels/as2-protocol.js';
import {
  defaultInteropOptions,
  formatDispositionNotificationOptions,
  formatMic,
  LegacyAlgorithmError,
  packOutgoing,
  parseMicAlgorithm,
  type ContentEncryption,
  type InteropOptions,
  type PackedMessage,
} from '../as2/index.js';
import { formatAs2Name } from '../as2-shared/headers.js';
import { certificateOf, keyPairOf } from '../as2-shared/material.js';
import { formatFilename } from '../as2/mime/parameters.js';
import { contentDisposition } from '../shared/content-disposition.js';

export class ProfileProblem extends Error {}

export interface BuiltRequest {
  packed: PackedMessage;
  headers: Record<string, string>;
  /** The MIC the receipt must echo, in Received-Content-MIC form. */
  mic: string;
}

export function buildRequest(
  context: As2OutboundContext,
  payload: Buffer,
  fileName: string,
  messageId: string,
  userAgent: string,
  compressionOrder: 'before-sign' | 'after-sign',
  interop: InteropOptions = defaultInteropOptions,
): BuiltRequest {
  let sign = null;
  if (context.signing_algorithm !== 'none') {
    const pair = keyPairOf(context.signing);
    if (!pair) throw new ProfileProblem('the organization has no signing certificate with a private key');
    sign = {
      algorithm: parseMicAlgorithm(context.signing_algorithm) ?? 'sha-256',
      ...pair,
      signedAttributes: interop.signedAttributes,
      algorithmProtection: interop.algorithmProtection,
    };
  }
  let encrypt = null;
  if (context.encryption_algorithm !== 'none') {
    if (!context.encryption) throw new ProfileProblem("the partner's profile has no encryption certificate");
    encrypt = {
      algorithm: context.encryption_algorithm as ContentEncryption,
      certificate: certificateOf(context.encryption),
      keyTransport: interop.keyTransport,
    };
  }
  let packed: PackedMessage;
  try {
    packed = packOutgoing(payload, {
      filename: fileName,
      filenameQuoting: interop.filenameQuoting,
      compress: context.compression ? compressionOrder : 'off',
      sign,
      encrypt,
      transferEncoding: interop.transferEncoding,
      micSpelling: interop.micSpelling,
      // Also keeps the MIC asked of the receipt (signed-receipt-micalg) off SHA-1 and MD5.
      micAlgorithm: sign?.algorithm ?? 'sha-256',
      modernOnly: context.as2bis,
    });
  } catch (error) {
    // The API refuses such a profile; a row changed behind its back still sends nothing weak.
    if (error instanceof LegacyAlgorithmError)
      throw new ProfileProblem(`${error.message} (the partner's profile has as2bis on)`);
    throw error;
  }
  const headers: Record<string, string> = {
    'AS2-Version': '1.2',
    'AS2-From': formatAs2Name(context.organization_as2id),
    'AS2-To': formatAs2Name(context.partner_as2id),
    'Message-ID': messageId,
    Subject: `AS2 message ${fileName}`.replace(/[\r\n]/g, ' ').slice(0, 200),
    Date: new Date().toUTCString(),
    ...packed.headers,
    'Content-Disposition':
      interop.filenameQuoting === 'token'
        ? `attachment${formatFilename(fileName, 'token')}`
        : contentDisposition(fileName),
    'User-Agent': userAgent,
  };
  if (context.mdn_mode !== 'none') {
    headers['Disposition-Notification-To'] =
      context.async_mdn_url || formatAs2Name(context.organization_as2id);
    if (context.mdn_signed)
      headers['Disposition-Notification-Options'] = formatDispositionNotificationOptions(
        [packed.mic.algorithm],
        interop.micSpelling,
      );
    if (context.mdn_mode === 'async') {
      if (!context.async_mdn_url)
        throw new ProfileProblem("asynchronous receipts need the organization profile's async_mdn_url");
      headers['Receipt-Delivery-Option'] = context.async_mdn_url;
    }
  }
  if (context.http_basic_user !== '') {
    const pair = `${context.http_basic_user}:${context.http_basic_password}`;
    headers.Authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
  }
  for (const h of context.http_headers) headers[h.name] = h.value;
  if (interop.bodyFraming === 'content-length') headers['Content-Length'] = String(packed.bodyLength);
  return { packed, headers, mic: formatMic(packed.mic) };
}
