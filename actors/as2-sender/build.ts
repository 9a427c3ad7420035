/**
 * Building the AS2 request for one delivery from the partner's profile: the packed body
 * (compress → sign → encrypt) and the AS2 headers (RFC 4130 §6), with the Message-ID given
 * (a redelivery resends the one used before). A small document is packed in memory; a large
 * one from a file, streamed, with the same options and headers.
 */
import type { X509Certificate } from 'node:crypto';
import type { As2OutboundContext } from '../../protocol/as2-protocol.js';
import {
  defaultInteropOptions,
  formatDispositionNotificationOptions,
  formatMic,
  LegacyAlgorithmError,
  packOutgoing,
  type ContentEncryption,
  type InteropOptions,
  type Mic,
  type MicAlgorithm,
  type PackOptions,
} from '../as2/index.js';
import { packOutgoingStreamed } from '../as2/stream/pack-streamed.js';
import type { FileRange, Source } from '../as2/stream/source.js';
import type { TempFiles } from '../as2/stream/temp-files.js';
import { signingChoiceOf } from '../../pki/algorithms/signing-choices.js';
import { formatAs2Name } from '../as2-shared/headers.js';
import { certificateOf, keyPairOf, type KeyPair } from '../as2-shared/material.js';
import { ecCurveOf } from '../../pki/cms/ec-keys.js';
import { formatFilename } from '../as2/mime/parameters.js';
import { contentDisposition } from '../shared/content-disposition.js';

export class ProfileProblem extends Error {}

export interface BuiltRequest {
  headers: Record<string, string>;
  /** The HTTP body: buffers in memory, or for a large document buffers and temporary files. */
  body: Source;
  /** The MIC the receipt must echo, in Received-Content-MIC form. */
  mic: string;
  micAlgorithm: MicAlgorithm;
}

/** What the request is built from, besides the document. */
export interface RequestParts {
  context: As2OutboundContext;
  fileName: string;
  messageId: string;
  userAgent: string;
  compressionOrder: 'before-sign' | 'after-sign';
  interop?: InteropOptions;
  /** The document's Content-Type; application/octet-stream when not given. */
  contentType?: string;
}

/** The request for a document held in memory (the fast path for the many small messages). */
export function buildRequest(parts: RequestParts, payload: Buffer): BuiltRequest {
  const options = packOptionsOf(parts);
  const packed = refusingLegacy(() => packOutgoing(payload, options));
  const body = { length: packed.bodyLength, chunks: packed.bodyChunks };
  return finishRequest(parts, packed.headers, packed.mic, body);
}

/**
 * The request for a document read from a file, built through temporary files in `temp`
 * (see as2/stream/pack-streamed.ts); memory stays flat whatever the document's size.
 */
export async function buildStreamedRequest(
  parts: RequestParts,
  document: FileRange,
  temp: TempFiles,
): Promise<BuiltRequest> {
  const options = packOptionsOf(parts);
  const packed = await refusingLegacyAsync(() => packOutgoingStreamed(document, options, temp));
  return finishRequest(parts, packed.headers, packed.mic, packed.body);
}

function packOptionsOf({
  context,
  fileName,
  compressionOrder,
  interop = defaultInteropOptions,
  contentType,
}: RequestParts): PackOptions {
  let sign = null;
  if (context.signing_algorithm !== 'none') {
    const pair = keyPairOf(context.signing);
    if (!pair) throw new ProfileProblem('the organization has no signing certificate with a private key');
    const choice = signingChoiceOf(context.signing_algorithm);
    if (!choice) throw new ProfileProblem(`unknown signing algorithm ${context.signing_algorithm}`);
    sign = {
      algorithm: choice.digest,
      scheme: choice.scheme,
      ...pair,
      signedAttributes: interop.signedAttributes,
      algorithmProtection: interop.algorithmProtection,
    };
  }
  let encrypt = null;
  if (context.encryption_algorithm !== 'none') {
    if (!context.encryption) throw new ProfileProblem("the partner's profile has no encryption certificate");
    const certificate = certificateOf(context.encryption);
    encrypt = {
      algorithm: context.encryption_algorithm as ContentEncryption,
      certificate,
      keyTransport: interop.keyTransport,
      keyAgreement: interop.keyAgreement,
      originator: interop.keyAgreement === 'ecmqv' ? ecmqvOriginator(context, certificate) : null,
    };
  }
  return {
    ...(contentType !== undefined ? { contentType } : {}),
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
  };
}

/**
 * The organization's static key for 1-pass ECMQV: the first of its decryption certificates, then
 * its signing certificate, with a key on the partner certificate's curve. Null for an RSA
 * partner certificate, which takes key transport whatever key_agreement says.
 */
function ecmqvOriginator(context: As2OutboundContext, certificate: X509Certificate): KeyPair | null {
  const curve = ecCurveOf(certificate.publicKey);
  if (curve === null) return null;
  for (const material of context.ecmqv_keys) {
    const pair = keyPairOf(material);
    if (pair && ecCurveOf(pair.privateKey) === curve) return pair;
  }
  throw new ProfileProblem(
    `the partner's profile asks for 1-pass ECMQV, which needs a decryption or signing certificate of the organization with its private key on ${curveName(curve)}, the curve of the partner's encryption certificate`,
  );
}

const curveName = (curve: string) =>
  ({ prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' })[curve] ?? curve;

// The API refuses such a profile; a row changed behind its back still sends nothing weak.
const legacyProblem = (error: LegacyAlgorithmError) =>
  new ProfileProblem(`${error.message} (the partner's profile has as2bis on)`);

function refusingLegacy<T>(pack: () => T): T {
  try {
    return pack();
  } catch (error) {
    if (error instanceof LegacyAlgorithmError) throw legacyProblem(error);
    throw error;
  }
}

async function refusingLegacyAsync<T>(pack: () => Promise<T>): Promise<T> {
  try {
    return await pack();
  } catch (error) {
    if (error instanceof LegacyAlgorithmError) throw legacyProblem(error);
    throw error;
  }
}

function finishRequest(
  { context, fileName, messageId, userAgent, interop = defaultInteropOptions }: RequestParts,
  packedHeaders: Record<string, string>,
  mic: Mic,
  body: Source,
): BuiltRequest {
  const headers: Record<string, string> = {
    'AS2-Version': '1.2',
    'AS2-From': formatAs2Name(context.organization_as2id),
    'AS2-To': formatAs2Name(context.partner_as2id),
    'Message-ID': messageId,
    Subject: `AS2 message ${fileName}`.replace(/[\r\n]/g, ' ').slice(0, 200),
    Date: new Date().toUTCString(),
    ...packedHeaders,
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
        [mic.algorithm],
        interop.micSpelling,
      );
    if (context.mdn_mode === 'async') {
      if (!context.async_mdn_url)
        throw new ProfileProblem(
          "asynchronous receipts need an address: the organization profile's async_mdn_url, the public_url of the one AS2 receiver, or PUBLIC_URL with one receiver",
        );
      headers['Receipt-Delivery-Option'] = context.async_mdn_url;
    }
  }
  if (context.http_basic_user !== '') {
    const pair = `${context.http_basic_user}:${context.http_basic_password}`;
    headers.Authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
  }
  for (const h of context.http_headers) headers[h.name] = h.value;
  if (interop.bodyFraming === 'content-length') headers['Content-Length'] = String(body.length);
  return { headers, body, mic: formatMic(mic), micAlgorithm: mic.algorithm };
}
