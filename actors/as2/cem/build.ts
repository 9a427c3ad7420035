/**
 * Writing CEM messages: the XML document and the multipart/related entity that carries it
 * (with each certificate as a certs-only PKCS#7 part for a request), ready to be sent as the
 * content of an AS2 message. The entity is kept as a message's payload headers first, so
 * the AS2 sender sends it with its own Content-Type (cemEntityOf, entity.ts).
 */
import { randomBytes } from 'node:crypto';
import { buildCertsOnly } from '../../../pki/certificates/certs-only.js';
import { buildEntity, buildMultipartBody, joinChunks, newBoundary, type HeaderList } from '../mime/build.js';
import { encodeBase64Lines } from '../mime/transfer-encoding.js';
import { referenceOf } from './reference.js';
import {
  cemNamespace,
  cemXmlType,
  certsOnlyType,
  xmldsigNamespace,
  type CemUsage,
  type CertificateReference,
} from './vocabulary.js';
import { escapeXml } from './xml-reader.js';

export interface RequestToBuild {
  requestId: string;
  /** Our AS2 name. */
  sender: string;
  originated: Date;
  respondBy: Date;
  usages: CemUsage[];
  /** Where the partner may send its response; null: the usual AS2 way back. */
  responseUrl: string | null;
  certificates: Buffer[];
}

export interface ResponseToBuild {
  requestId: string;
  sender: string;
  originated: Date;
  answers: { accepted: boolean; reason: string | null; reference: CertificateReference }[];
}

/** A Content-ID for a part, unique enough to stand for it in the XML: `<random@domain>` without brackets. */
export function newContentId(domain: string): string {
  return `${randomBytes(12).toString('hex')}@${domain.replace(/[^A-Za-z0-9.-]/g, '') || 'pier'}`;
}

const header = (name: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<ns:${name} xmlns:ns="${cemNamespace}" xmlns:ds="${xmldsigNamespace}">\n`;

const partnerInfo = (sender: string, originated: Date) =>
  `  <ns:TradingPartnerInfo>\n    <ns:Name qualifier="AS2">${escapeXml(sender)}</ns:Name>\n` +
  `    <ns:MessageOriginated>${originated.toISOString()}</ns:MessageOriginated>\n  </ns:TradingPartnerInfo>\n`;

const reference = (element: string, r: CertificateReference, indent: string) =>
  `${indent}<ns:${element}>\n${indent}  <ds:X509IssuerName>${escapeXml(r.issuer)}</ds:X509IssuerName>\n` +
  `${indent}  <ds:X509SerialNumber>${r.serial}</ds:X509SerialNumber>\n${indent}</ns:${element}>\n`;

export function requestXml(request: RequestToBuild, contentIds: string[]): string {
  let xml = header('CertificateExchangeRequest') + partnerInfo(request.sender, request.originated);
  xml += `  <ns:RequestID>${escapeXml(request.requestId)}</ns:RequestID>\n`;
  request.certificates.forEach((der, i) => {
    xml += '  <ns:TrustRequest>\n';
    if (request.responseUrl)
      xml += `    <ns:ResponseURL>${escapeXml(request.responseUrl)}</ns:ResponseURL>\n`;
    xml += `    <ns:RespondByDate>${request.respondBy.toISOString()}</ns:RespondByDate>\n`;
    for (const usage of request.usages) xml += `    <ns:CertUsage>${usage}</ns:CertUsage>\n`;
    xml += '    <ns:EndEntity>\n';
    xml += reference('CertificateIdentifier', referenceOf(der), '      ');
    xml += `      <ns:CertificateContentID>${escapeXml(contentIds[i]!)}</ns:CertificateContentID>\n`;
    xml += '    </ns:EndEntity>\n  </ns:TrustRequest>\n';
  });
  return `${xml}</ns:CertificateExchangeRequest>\n`;
}

export function responseXml(response: ResponseToBuild): string {
  let xml = header('CertificateExchangeResponse') + partnerInfo(response.sender, response.originated);
  xml += `  <ns:RequestID>${escapeXml(response.requestId)}</ns:RequestID>\n`;
  for (const answer of response.answers) {
    xml += '  <ns:TrustResponse>\n';
    xml += `    <ns:CertStatus>${answer.accepted ? 'Accepted' : 'Rejected'}</ns:CertStatus>\n`;
    if (!answer.accepted && answer.reason)
      xml += `    <ns:ReasonForRejection>${escapeXml(answer.reason)}</ns:ReasonForRejection>\n`;
    xml += reference('CertificateReference', answer.reference, '    ');
    xml += '  </ns:TrustResponse>\n';
  }
  return `${xml}</ns:CertificateExchangeResponse>\n`;
}

function related(parts: { headers: HeaderList; body: Buffer }[], startId: string): Buffer {
  const boundary = newBoundary();
  const body = buildMultipartBody(
    boundary,
    parts.map((p) => buildEntity(p.headers, p.body)),
  );
  return joinChunks(
    buildEntity(
      [
        [
          'Content-Type',
          `multipart/related; type="${cemXmlType}"; boundary="${boundary}"; start="<${startId}>"`,
        ],
      ],
      body,
    ),
  );
}

/** The request as a MIME entity: multipart/related with the XML first, then one certs-only part per certificate. */
export function buildRequestEntity(request: RequestToBuild, domain: string): Buffer {
  const xmlId = newContentId(domain);
  const certIds = request.certificates.map(() => newContentId(domain));
  const xml = requestXml(request, certIds);
  return related(
    [
      {
        headers: [
          ['Content-Type', cemXmlType],
          ['Content-ID', `<${xmlId}>`],
        ],
        body: Buffer.from(xml, 'utf8'),
      },
      ...request.certificates.map((der, i) => ({
        headers: [
          ['Content-Type', certsOnlyType],
          ['Content-Transfer-Encoding', 'base64'],
          ['Content-ID', `<${certIds[i]!}>`],
          ['Content-Disposition', `attachment; filename="certificate-${i + 1}.p7c"`],
        ] as HeaderList,
        body: encodeBase64Lines(buildCertsOnly([der])),
      })),
    ],
    xmlId,
  );
}

/** The response as a MIME entity: multipart/related holding the XML alone, as Mendelson sends it. */
export function buildResponseEntity(response: ResponseToBuild, domain: string): Buffer {
  const xmlId = newContentId(domain);
  return related(
    [
      {
        headers: [
          ['Content-Type', cemXmlType],
          ['Content-ID', `<${xmlId}>`],
        ],
        body: Buffer.from(responseXml(response), 'utf8'),
      },
    ],
    xmlId,
  );
}
