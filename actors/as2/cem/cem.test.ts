// Covers the CEM library alone: a request and a response written by pier read back field for field, the certs-only PKCS#7 pier writes read by `openssl pkcs7`, the cemEntityOf marker the AS2 sender goes by, and the XML reader's refusals (unclosed, mismatched, DOCTYPE, unknown entity, content after the root).
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { makeFixtures } from '../../../test/helpers/certificates.js';
import { buildCertsOnly } from '../../../pki/certificates/certs-only.js';
import { buildRequestEntity, buildResponseEntity, cemEntityOf, readCem, referenceOf } from './index.js';
import { readXml } from './xml-reader.js';

const f = makeFixtures();
t.teardown(() => f.remove());
f.selfSigned('next', '/O=Acme, Inc./CN=acme-next.example', 400);
const der = new X509Certificate(f.read('next.crt')).raw;

t.test('a request pier writes reads back as written', async (t) => {
  const respondBy = new Date('2027-02-01T00:00:00.000Z');
  const entity = buildRequestEntity(
    {
      requestId: 'req-1@ACME',
      sender: 'ACME <main>',
      originated: new Date('2026-11-23T10:00:00.000Z'),
      respondBy,
      usages: ['signature', 'tls'],
      responseUrl: 'https://as2.acme.example/as2',
      certificates: [der],
    },
    'ACME',
  );
  const cem = cemEntityOf(entity);
  t.ok(cem, 'the AS2 sender recognises it');
  t.match(cem!.contentType, /^multipart\/related; type="application\/ediint-cert-exchange\+xml"; boundary="/);
  const read = readCem(cem!.contentType, cem!.body);
  t.match(read, {
    kind: 'request',
    requestId: 'req-1@ACME',
    sender: 'ACME <main>',
    originated: '2026-11-23T10:00:00.000Z',
    trustRequests: [
      {
        usages: ['signature', 'tls'],
        respondBy: respondBy.toISOString(),
        responseUrl: 'https://as2.acme.example/as2',
        reference: referenceOf(der),
      },
    ],
  });
  t.ok(
    read.kind === 'request' && read.trustRequests[0]!.certificate.equals(der),
    'the certificate byte for byte',
  );
  t.equal(referenceOf(der).issuer, 'CN=acme-next.example,O=Acme\\, Inc.', 'RFC 2253 order and escapes');
});

t.test('a response reads back with each answer', async (t) => {
  const entity = buildResponseEntity(
    {
      requestId: 'req-1@ACME',
      sender: 'GLOBEX',
      originated: new Date(),
      answers: [{ accepted: false, reason: 'Key < 2048 bits & weak', reference: referenceOf(der) }],
    },
    'GLOBEX',
  );
  const cem = cemEntityOf(entity)!;
  t.match(readCem(cem.contentType, cem.body), {
    kind: 'response',
    requestId: 'req-1@ACME',
    trustResponses: [{ accepted: false, reason: 'Key < 2048 bits & weak', reference: referenceOf(der) }],
  });
});

t.test('openssl reads the certs-only PKCS#7 pier writes', async (t) => {
  writeFileSync(path.join(f.dir, 'built.p7c'), buildCertsOnly([der]));
  const printed = f.openssl('pkcs7 -inform DER -in built.p7c -print_certs -noout');
  t.match(printed, 'subject=O = "Acme, Inc.", CN = acme-next.example');
});

t.test('a business document is never taken for a CEM entity', async (t) => {
  t.equal(cemEntityOf(Buffer.from('ISA*00*          *00*~')), null);
  t.equal(
    cemEntityOf(Buffer.from('Content-Type: multipart/related; type="application/ediint-cert-exchange+xml"')),
    null,
  );
});

t.test('the XML reader refuses what is not well formed', async (t) => {
  const refused: [string, RegExp][] = [
    ['<a><b></a>', /<\/a> closes <b>/],
    ['<a>', /<a> is not closed/],
    ['<!DOCTYPE a><a/>', /DOCTYPE is not accepted/],
    ['<a>&nbsp;</a>', /&nbsp; is not one XML predefines/],
    ['<a/><b/>', /content after the document element/],
    ['<a x="1" x="2"/>', /attribute x of <a> is repeated/],
  ];
  for (const [xml, problem] of refused) t.throws(() => readXml(xml), { message: problem }, xml);
  t.match(readXml('<?xml version="1.0"?><p:a><p:b>x &amp; &#x41;<![CDATA[<y>]]></p:b></p:a>'), {
    local: 'a',
    children: [{ local: 'b', text: 'x & A<y>' }],
  });
});
