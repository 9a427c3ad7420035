/**
 * Reading a partner's receipt: signed (multipart/signed around multipart/report) or not, with
 * any MIC spelling, and a preamble some gateways put before the first boundary (Mendelson and
 * OpenAS2 repeat MIME headers there).
 */
import type { X509Certificate } from 'node:crypto';
import { Headers, MimeError, parseHeaderSection } from '../mime/headers.js';
import { decodeUtf8 } from '../mime/parameters.js';
import { contentTypeOf, parseEntity, parseMultipart, transferEncodingOf } from '../mime/parse.js';
import { decodeTransferEncoding } from '../mime/transfer-encoding.js';
import { parseMic, type ReceivedMic } from '../mic.js';
import { verifySignedEntity } from '../smime/signed.js';
import { DispositionError } from '../vocabulary/disposition-error.js';
import { parseDisposition, type Disposition } from '../vocabulary/dispositions.js';
import type { MicAlgorithm } from '../../../pki/algorithms/mic-algorithms.js';

export class MdnError extends Error {
  readonly code = 'AS2_MDN_INVALID';
  constructor(
    /** `malformed`: not a readable receipt; `signature`: its signature does not verify; `unsigned`: a signature was required. */
    readonly reason: 'malformed' | 'signature' | 'unsigned',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MdnError';
  }
}

export interface ParsedMdn {
  /** null when the Disposition field is missing or unreadable (the text is in `fields`). */
  disposition: Disposition | null;
  originalMessageId: string | null;
  mic: ReceivedMic | null;
  reportingUa: string | null;
  originalRecipient: string | null;
  finalRecipient: string | null;
  /** The human-readable part. */
  text: string;
  /** Every field of the disposition-notification part. */
  fields: Headers;
  signature: null | {
    /** False when no certificates were given to check it against. */
    verified: boolean;
    signer: X509Certificate | null;
    digestAlgorithm: MicAlgorithm | null;
  };
}

export interface ParseMdnOptions {
  /** The partner's certificates; when given, a signed receipt must verify against one of them. */
  verificationCerts?: readonly X509Certificate[];
  /** Refuse an unsigned receipt. */
  requireSigned?: boolean;
}

export function parseMdn(
  body: Buffer,
  headers: Headers | Readonly<Record<string, string | readonly string[] | number | undefined>>,
  options: ParseMdnOptions = {},
): ParsedMdn {
  const outer = headers instanceof Headers ? headers : Headers.fromRecord(headers);
  let report = { headers: outer, body };
  let signature: ParsedMdn['signature'] = null;
  const type = contentTypeOf(outer).value;
  if (type === 'multipart/signed') {
    const certificates = options.verificationCerts ?? [];
    if (certificates.length > 0) {
      try {
        const verified = verifySignedEntity(outer, body, certificates);
        signature = {
          verified: true,
          signer: verified.signature.signer,
          digestAlgorithm: verified.signature.digestAlgorithm,
        };
        report = verified.inner;
      } catch (error) {
        const reason =
          error instanceof DispositionError && error.modifier === 'unexpected-processing-error'
            ? 'malformed'
            : 'signature';
        throw new MdnError(reason, `receipt signature: ${(error as Error).message}`, { cause: error });
      }
    } else {
      report = parseEntity(firstPart(outer, body));
      signature = { verified: false, signer: null, digestAlgorithm: null };
    }
  } else if (options.requireSigned) {
    throw new MdnError('unsigned', 'the receipt is not signed');
  }
  try {
    return { ...readReport(report.headers, report.body), signature };
  } catch (error) {
    if (error instanceof MdnError) throw error;
    throw new MdnError('malformed', `unreadable receipt: ${(error as Error).message}`, { cause: error });
  }
}

function firstPart(headers: Headers, body: Buffer): Buffer {
  const boundary = contentTypeOf(headers).params.get('boundary');
  if (!boundary) throw new MdnError('malformed', 'multipart/signed without a boundary');
  const part = parseMultipart(body, boundary).parts[0];
  if (!part) throw new MdnError('malformed', 'empty multipart/signed');
  return part;
}

function readReport(headers: Headers, body: Buffer): Omit<ParsedMdn, 'signature'> {
  const type = contentTypeOf(headers);
  if (type.value !== 'multipart/report')
    throw new MdnError('malformed', `a receipt is multipart/report, not ${type.value}`);
  const boundary = type.params.get('boundary');
  if (!boundary) throw new MimeError('multipart/report without a boundary');
  let fields: Headers | null = null;
  let text = '';
  for (const raw of parseMultipart(body, boundary).parts) {
    const part = parseEntity(raw);
    const partType = contentTypeOf(part.headers).value;
    const content = decodeTransferEncoding(part.body, transferEncodingOf(part.headers));
    if (partType === 'message/disposition-notification' && !fields) {
      fields = parseHeaderSection(content.toString('latin1'));
    } else if (partType === 'text/plain' && !text) {
      text = decodeUtf8(content);
    }
  }
  if (!fields) throw new MdnError('malformed', 'no message/disposition-notification part');
  const dispositionText = fields.get('disposition');
  let disposition: Disposition | null = null;
  try {
    disposition = dispositionText ? parseDisposition(dispositionText) : null;
  } catch {
    disposition = null;
  }
  const micText = fields.get('received-content-mic');
  return {
    disposition,
    originalMessageId: fields.get('original-message-id') ?? null,
    mic: micText ? parseMic(micText) : null,
    reportingUa: fields.get('reporting-ua') ?? null,
    originalRecipient: recipient(fields.get('original-recipient')),
    finalRecipient: recipient(fields.get('final-recipient')),
    text,
    fields,
  };
}

/** `rfc822; NAME` → `NAME`. */
function recipient(value: string | undefined): string | null {
  if (value === undefined) return null;
  const semicolon = value.indexOf(';');
  return (semicolon >= 0 ? value.slice(semicolon + 1) : value).trim();
}
