/**
 * Certificate Exchange Messaging (CEM, the EDIINT certificate exchange that Drummond
 * certifies): its media types, XML namespace and the shapes pier reads and writes. The
 * format pier follows is recorded in docs/decisions/cem-message-format.md.
 */
import { cemUsages } from '../../../protocol/cem-protocol.js';

export { cemUsages };

export const cemNamespace = 'urn:ietf:params:xml:ns:ediintcertificateexchange';
export const xmldsigNamespace = 'http://www.w3.org/2000/09/xmldsig#';
/** The XML part of a request or response, and the `type` parameter of its multipart/related. */
export const cemXmlType = 'application/ediint-cert-exchange+xml';
export const certsOnlyType = 'application/pkcs7-mime; smime-type=certs-only';

export type CemUsage = (typeof cemUsages)[number];

/** A certificate as XML Signature names it: issuer (RFC 2253 text) and decimal serial number. */
export interface CertificateReference {
  issuer: string;
  /** Decimal, as X509SerialNumber writes it. */
  serial: string;
}

export interface TrustRequest {
  usages: CemUsage[];
  /** ISO 8601 instant. */
  respondBy: string;
  responseUrl: string | null;
  reference: CertificateReference;
  /** The Content-ID of the part that carries the certificate, without angle brackets. */
  contentId: string;
  /** The end-entity certificate, DER. */
  certificate: Buffer;
}

export interface CemRequest {
  kind: 'request';
  requestId: string;
  /** TradingPartnerInfo: the sender's AS2 name. */
  sender: string;
  /** ISO 8601 instant the request was made, as the sender says; null when it says none. */
  originated: string | null;
  trustRequests: TrustRequest[];
}

export interface TrustResponse {
  accepted: boolean;
  reason: string | null;
  reference: CertificateReference;
}

export interface CemResponse {
  kind: 'response';
  requestId: string;
  sender: string;
  originated: string | null;
  trustResponses: TrustResponse[];
}

export type CemMessage = CemRequest | CemResponse;

/** A CEM document pier cannot take; the message says what is wrong, for the receipt and the log. */
export class CemFormatError extends Error {}

/** True for a received entity's Content-Type that carries a certificate exchange message. */
export function isCemContentType(contentType: string): boolean {
  const lower = contentType.toLowerCase();
  if (lower.trim().startsWith(cemXmlType)) return true;
  return lower.trim().startsWith('multipart/related') && lower.includes(cemXmlType);
}
