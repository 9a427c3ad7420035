/**
 * Reading a received CEM message: the multipart/related entity (or, for a response, the XML
 * alone), the XML document, and for a request the certificate each TrustRequest names by
 * Content-ID, out of its certs-only PKCS#7 part (or a plain DER or PEM certificate, as some
 * gateways send). Anything missing or contradictory is a CemFormatError naming it, so the
 * partner's receipt and the operator's log say what to fix; nothing is stored before this
 * has read the whole message.
 */
import { X509Certificate } from 'node:crypto';
import { readPkcs7 } from '../../../pki/certificates/pkcs7.js';
import { MimeError } from '../mime/headers.js';
import { contentTypeOf, parseEntity, parseMultipart, transferEncodingOf } from '../mime/parse.js';
import { parseStructuredValue } from '../mime/parameters.js';
import { decodeTransferEncoding } from '../mime/transfer-encoding.js';
import { sameCertificate } from './reference.js';
import {
  CemFormatError,
  cemUsages,
  cemXmlType,
  type CemMessage,
  type CemUsage,
  type CertificateReference,
  type TrustRequest,
  type TrustResponse,
} from './vocabulary.js';
import { childrenNamed, onlyChild, readXml, XmlError, type XmlElement } from './xml-reader.js';

/** Most TrustRequests or TrustResponses taken in one message. */
const maxEntries = 20;
const maxXmlBytes = 1024 * 1024;

interface Part {
  contentType: string;
  body: Buffer;
}

export function readCem(contentType: string, body: Buffer): CemMessage {
  try {
    return readParts(contentType, body);
  } catch (error) {
    if (error instanceof XmlError)
      throw new CemFormatError(`The CEM XML is not well formed: ${error.message}`);
    if (error instanceof MimeError)
      throw new CemFormatError(`The CEM message is not readable MIME: ${error.message}`);
    throw error;
  }
}

function readParts(contentType: string, body: Buffer): CemMessage {
  const type = parseStructuredValue(contentType);
  if (type.value === cemXmlType) return readDocument(body, new Map());
  if (type.value !== 'multipart/related')
    throw new CemFormatError(`A CEM message is multipart/related, not ${type.value}`);
  const boundary = type.params.get('boundary');
  if (!boundary) throw new CemFormatError('The multipart/related CEM message has no boundary');
  const parts = new Map<string, Part>();
  const unnamed: Part[] = [];
  let xml: Part | undefined;
  for (const raw of parseMultipart(body, boundary).parts) {
    const entity = parseEntity(raw);
    const part = {
      contentType: contentTypeOf(entity.headers).value,
      body: decodeTransferEncoding(entity.body, transferEncodingOf(entity.headers)),
    };
    const id = entity.headers.get('content-id')?.trim().replace(/^<|>$/g, '');
    if (id) parts.set(id, part);
    else unnamed.push(part);
    if (part.contentType === cemXmlType) {
      if (xml) throw new CemFormatError(`The CEM message holds more than one ${cemXmlType} part`);
      xml = part;
    }
  }
  if (!xml) throw new CemFormatError(`The CEM message has no ${cemXmlType} part`);
  return readDocument(xml.body, parts);
}

function readDocument(xml: Buffer, parts: Map<string, Part>): CemMessage {
  if (xml.length > maxXmlBytes) throw new CemFormatError(`The CEM XML is larger than ${maxXmlBytes} bytes`);
  const root = readXml(xml.toString('utf8'));
  const requestId = requiredText(root, 'RequestID', 256);
  const info = onlyChild(root, 'TradingPartnerInfo');
  if (!info) throw new CemFormatError(`<${root.local}> has no TradingPartnerInfo`);
  const sender = requiredText(info, 'Name', 128);
  const originatedText = onlyChild(info, 'MessageOriginated')?.text.trim();
  const originated = originatedText ? instant(originatedText, 'MessageOriginated') : null;
  if (root.local === 'CertificateExchangeRequest') {
    const entries = childrenNamed(root, 'TrustRequest');
    counted(entries, 'TrustRequest');
    return {
      kind: 'request',
      requestId,
      sender,
      originated,
      trustRequests: entries.map((e, i) => trustRequest(e, i + 1, parts)),
    };
  }
  if (root.local === 'CertificateExchangeResponse') {
    const entries = childrenNamed(root, 'TrustResponse');
    counted(entries, 'TrustResponse');
    return { kind: 'response', requestId, sender, originated, trustResponses: entries.map(trustResponse) };
  }
  throw new CemFormatError(
    `The CEM XML's root is <${root.local}>, not CertificateExchangeRequest or CertificateExchangeResponse`,
  );
}

function counted(entries: XmlElement[], name: string): void {
  if (entries.length === 0) throw new CemFormatError(`The CEM message holds no ${name}`);
  if (entries.length > maxEntries)
    throw new CemFormatError(
      `The CEM message holds ${entries.length} ${name} elements; at most ${maxEntries} are taken`,
    );
}

function trustRequest(e: XmlElement, n: number, parts: Map<string, Part>): TrustRequest {
  const where = `TrustRequest ${n}`;
  const usages = childrenNamed(e, 'CertUsage').map((u) => u.text.trim().toLowerCase());
  if (usages.length === 0) throw new CemFormatError(`${where} names no CertUsage`);
  for (const usage of usages)
    if (!(cemUsages as readonly string[]).includes(usage))
      throw new CemFormatError(`${where}: CertUsage ${usage} is not one of ${cemUsages.join(', ')}`);
  const respondBy = instant(requiredText(e, 'RespondByDate', 64, where), `${where} RespondByDate`);
  const responseUrl = onlyChild(e, 'ResponseURL')?.text.trim() || null;
  const endEntity = onlyChild(e, 'EndEntity');
  if (!endEntity) throw new CemFormatError(`${where} has no EndEntity`);
  const contentId = requiredText(endEntity, 'CertificateContentID', 998, where).replace(/^<|>$/g, '');
  const part = parts.get(contentId);
  if (!part)
    throw new CemFormatError(
      `${where} names the certificate part ${contentId}, which the message does not hold`,
    );
  const certificates = certificatesIn(part, where);
  const identifier = onlyChild(endEntity, 'CertificateIdentifier');
  const reference = identifier ? referenceIn(identifier, where) : null;
  const certificate = reference
    ? certificates.find((der) => sameCertificate(reference, der))
    : certificates[0];
  if (!certificate)
    throw new CemFormatError(
      `${where}: no certificate in part ${contentId} has serial number ${reference!.serial} of ${reference!.issuer}`,
    );
  return {
    usages: [...new Set(usages)] as CemUsage[],
    respondBy,
    responseUrl,
    reference: reference ?? { issuer: '', serial: '' },
    contentId,
    certificate,
  };
}

function trustResponse(e: XmlElement, i: number): TrustResponse {
  const where = `TrustResponse ${i + 1}`;
  const status = requiredText(e, 'CertStatus', 32, where).toLowerCase();
  if (status !== 'accepted' && status !== 'rejected')
    throw new CemFormatError(`${where}: CertStatus ${status} is neither Accepted nor Rejected`);
  const referenceElement = onlyChild(e, 'CertificateReference');
  if (!referenceElement) throw new CemFormatError(`${where} has no CertificateReference`);
  return {
    accepted: status === 'accepted',
    reason: onlyChild(e, 'ReasonForRejection')?.text.trim().slice(0, 1024) || null,
    reference: referenceIn(referenceElement, where),
  };
}

function referenceIn(e: XmlElement, where: string): CertificateReference {
  // Some writers wrap the pair in ds:X509IssuerSerial.
  const holder = onlyChild(e, 'X509IssuerSerial') ?? e;
  const serial = requiredText(holder, 'X509SerialNumber', 128, where);
  if (!/^(\d+|(0x)?[0-9a-fA-F:]+)$/.test(serial))
    throw new CemFormatError(`${where}: X509SerialNumber ${serial} is not a number`);
  return { issuer: onlyChild(holder, 'X509IssuerName')?.text.trim() ?? '', serial };
}

function certificatesIn(part: Part, where: string): Buffer[] {
  let found: Buffer[];
  const text = part.body.toString('latin1');
  if (text.includes('-----BEGIN')) {
    found = [...text.matchAll(/-----BEGIN (?:CERTIFICATE|PKCS7)-----([A-Za-z0-9+/=\s]+)-----END/g)].flatMap(
      (m) => {
        const der = Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64');
        return m[0].includes('PKCS7') ? pkcs7Certificates(der, where) : [der];
      },
    );
  } else if (
    part.contentType === 'application/pkcs7-mime' ||
    part.contentType === 'application/pkcs7-signature'
  ) {
    found = pkcs7Certificates(part.body, where);
  } else found = [part.body];
  const readable = found.filter((der) => {
    try {
      new X509Certificate(der);
      return true;
    } catch {
      return false;
    }
  });
  if (readable.length === 0)
    throw new CemFormatError(`${where}: the certificate part holds no readable X.509 certificate`);
  return readable;
}

function pkcs7Certificates(der: Buffer, where: string): Buffer[] {
  try {
    return readPkcs7(der).certificates;
  } catch (error) {
    throw new CemFormatError(
      `${where}: the certs-only PKCS#7 part cannot be read (${(error as Error).message})`,
    );
  }
}

function requiredText(parent: XmlElement, local: string, max: number, where = `<${parent.local}>`): string {
  const text = onlyChild(parent, local)?.text.trim();
  if (!text) throw new CemFormatError(`${where} has no ${local}`);
  if (text.length > max) throw new CemFormatError(`${where}: ${local} is longer than ${max} characters`);
  return text;
}

/** An xs:dateTime (or a date alone) as an ISO instant; without a zone it is read as UTC. */
function instant(text: string, what: string): string {
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(text) || !text.includes('T') ? text : `${text}Z`;
  const ms = Date.parse(zoned);
  if (!/^\d{4}-\d\d-\d\d/.test(text) || Number.isNaN(ms))
    throw new CemFormatError(`${what} ${text} is not an XML date and time`);
  return new Date(ms).toISOString();
}
