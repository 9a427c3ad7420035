// Covers CEM requests built without pier, by hand and with `openssl` (the certificate as a certs-only PKCS#7 from `openssl crl2pkcs7 -nocrl -certfile`, the multipart/related signed with `openssl cms -sign` and encrypted with `openssl cms -encrypt`), posted to a running as2-receiver: a well-formed one is answered `processed`, stores the certificate and a pending exchange and adds the certificate beside the partner's current one; each malformed one, and one whose certificate is a twin of a trusted one (same issuer and serial, another key), is answered processed/Error with what is wrong, is Refused with the same words, and stores no exchange and no certificate.
import t from 'tap';
import { as2Headers, bobReceives, partner, syncSigned } from '../helpers/as2.js';
import { sql } from '../helpers/database.js';
import type { Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { asHttp, writeFixture } from '../helpers/smime.js';
import { makeParties } from '../as2/parties.js';

const server = await startTestServer(t);
const parties = makeParties(t);
const { fixtures } = parties;
const openssl = fixtures.openssl;

const { url, aliceCert } = await bobReceives(server, fixtures);
const alice = await partner(server, 'alice', 'ALICE', 'http://127.0.0.1:9/as2', aliceCert, syncSigned);

// Alice's next certificate, as a certs-only PKCS#7 in DER, and its serial number in decimal.
openssl(
  'req -x509 -newkey rsa:2048 -nodes -keyout alice-next.key -out alice-next.crt -days 400 -subj',
  '/O=alice/CN=alice-next.as2.example',
);
openssl('crl2pkcs7 -nocrl -certfile alice-next.crt -outform DER -out alice-next.p7c');
const certsOnly = fixtures.read('alice-next.p7c');
const serialHex = fixtures.openssl('x509 -in alice-next.crt -noout -serial').toString().trim().split('=')[1]!;
const serial = BigInt(`0x${serialHex}`).toString();

interface Variant {
  xml?: (xml: string) => string;
  certificatePart?: Buffer;
}

/** The request as Mendelson writes it: the XML with the `ns:` prefix, then the certificate part. */
function requestEntity(requestId: string, v: Variant = {}): Buffer {
  let xml = `<?xml version="1.0" encoding="UTF-8"?>
<ns:CertificateExchangeRequest xmlns:ns="urn:ietf:params:xml:ns:ediintcertificateexchange" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
  <ns:TradingPartnerInfo>
    <ns:Name qualifier="AS2">ALICE</ns:Name>
    <ns:MessageOriginated>2026-11-20T10:00:00+01:00</ns:MessageOriginated>
  </ns:TradingPartnerInfo>
  <ns:RequestID>${requestId}</ns:RequestID>
  <ns:TrustRequest>
    <ns:ResponseURL>http://127.0.0.1:9/as2</ns:ResponseURL>
    <ns:RespondByDate>2027-01-15T12:00:00-05:00</ns:RespondByDate>
    <ns:CertUsage>signature</ns:CertUsage>
    <ns:CertUsage>encryption</ns:CertUsage>
    <ns:EndEntity>
      <ns:CertificateIdentifier>
        <ds:X509IssuerName>CN=alice-next.as2.example, O=alice</ds:X509IssuerName>
        <ds:X509SerialNumber>${serial}</ds:X509SerialNumber>
      </ns:CertificateIdentifier>
      <ns:CertificateContentID>next-cert@alice.example</ns:CertificateContentID>
    </ns:EndEntity>
  </ns:TrustRequest>
</ns:CertificateExchangeRequest>
`;
  if (v.xml) xml = v.xml(xml);
  const boundary = 'cem-boundary-alice';
  const part = (v.certificatePart ?? certsOnly).toString('base64').replace(/.{76}/g, '$&\r\n');
  return Buffer.from(
    `Content-Type: multipart/related; type="application/ediint-cert-exchange+xml"; boundary="${boundary}"\r\n\r\n` +
      `--${boundary}\r\nContent-Type: application/ediint-cert-exchange+xml\r\nContent-ID: <request@alice.example>\r\n\r\n` +
      `${xml}\r\n--${boundary}\r\nContent-Type: application/pkcs7-mime; smime-type=certs-only\r\n` +
      `Content-Transfer-Encoding: base64\r\nContent-ID: <next-cert@alice.example>\r\n\r\n${part}\r\n--${boundary}--\r\n`,
  );
}

let sent = 0;
/** Signs and encrypts the entity with openssl and posts it as ALICE to BOB; the receipt's text and the message stored. */
async function post(entity: Buffer): Promise<{ status: number; receipt: string; message: Message }> {
  writeFixture(fixtures, 'cem.mime', entity);
  openssl('cms -sign -binary -in cem.mime -signer alice.crt -inkey alice.key -md sha256 -out cem-signed.eml');
  openssl('cms -encrypt -binary -in cem-signed.eml -aes256 -out cem-encrypted.eml -recip bob.crt');
  const request = asHttp(fixtures.read('cem-encrypted.eml'), { binary: true });
  const id = `<cem-${++sent}@alice.example>`;
  const answer = await fetch(url, {
    method: 'POST',
    headers: { ...as2Headers('ALICE', id), ...request.headers },
    body: new Uint8Array(request.body),
  });
  const receipt = Buffer.from(await answer.arrayBuffer()).toString('latin1');
  const list = await server.call('GET', '/api/v1/messages?limit=100');
  const message = (list.body.data.messages as Message[]).find((m) => m.protocols.as2?.message_id === id);
  return { status: answer.status, receipt, message };
}

const count = async (table: string) =>
  (await sql<{ n: number }>(server.db.url, `select count(*)::int as n from ${table}`))[0]!.n;

t.test(
  'a request built with openssl is taken: certificate stored beside the current one, exchange pending',
  async (t) => {
    const { status, receipt, message } = await post(requestEntity('openssl-request-1@alice.example'));
    t.equal(status, 200);
    t.match(receipt, /Disposition: automatic-action\/MDN-sent-automatically; processed\r?\n/);
    t.equal(message.status, 'NotRouted');
    const list = await server.call('GET', '/api/v1/cem/exchanges?partner=alice');
    t.equal(list.body.data.total, 1);
    const exchange = list.body.data.exchanges[0];
    t.match(exchange, {
      direction: 'inbound',
      state: 'pending',
      request_id: 'openssl-request-1@alice.example',
      respond_by: '2027-01-15T17:00:00.000Z',
      request_message_id: message.id,
      certificates: [{ usages: ['signature', 'encryption'], answer: 'pending', serial_number: serial }],
    });
    const certificate = (
      await server.call('GET', `/api/v1/certificates/${exchange.certificates[0].certificate_id}`)
    ).body.data;
    t.match(certificate, { common_name: 'alice-next.as2.example', has_private_key: false });
    const profile = (await server.call('GET', `/api/v1/as2/remote-profiles/${alice}`)).body.data;
    t.same(profile.signature_certificate_ids, [aliceCert, certificate.id]);
    t.equal(profile.partner_certificate_id, aliceCert, 'encryption switches only on the respond-by date');

    // The same request again (a partner retrying with a new Message-ID) changes nothing.
    const again = await post(requestEntity('openssl-request-1@alice.example'));
    t.match(again.receipt, /processed\r?\n/);
    t.match(again.message.history[0].text, 'was received before; nothing changed');
    t.equal((await server.call('GET', '/api/v1/cem/exchanges?partner=alice')).body.data.total, 1);
  },
);

const malformed: { label: string; variant: Variant; problem: string | RegExp }[] = [
  {
    label: 'XML not well formed',
    variant: { xml: (x) => x.replace('</ns:RequestID>', '</ns:RequestId>') },
    problem: 'The CEM XML is not well formed: </ns:RequestId> closes <ns:RequestID> (line 7)',
  },
  {
    label: 'an entity declared in a DOCTYPE',
    variant: { xml: (x) => x.replace('?>', '?>\n<!DOCTYPE x [<!ENTITY big "boom">]>') },
    problem: 'a DOCTYPE is not accepted in a certificate exchange document',
  },
  {
    label: 'a certificate part the request does not hold',
    variant: { xml: (x) => x.replace('next-cert@alice.example</ns:', 'missing@alice.example</ns:') },
    problem:
      'TrustRequest 1 names the certificate part missing@alice.example, which the message does not hold',
  },
  {
    label: 'an unknown usage',
    variant: { xml: (x) => x.replace('<ns:CertUsage>encryption', '<ns:CertUsage>banana') },
    problem: 'TrustRequest 1: CertUsage banana is not one of signature, encryption, tls',
  },
  {
    label: 'a respond-by date that is no date',
    variant: { xml: (x) => x.replace('2027-01-15T12:00:00-05:00', 'next week') },
    problem: 'TrustRequest 1 RespondByDate next week is not an XML date and time',
  },
  {
    label: 'no RequestID',
    variant: { xml: (x) => x.replace(/<ns:RequestID>.*<\/ns:RequestID>/, '') },
    problem: '<CertificateExchangeRequest> has no RequestID',
  },
  {
    label: 'a serial number the certificate does not have',
    variant: { xml: (x) => x.replace(`>${serial}<`, '>12345<') },
    problem: 'TrustRequest 1: no certificate in part next-cert@alice.example has serial number 12345',
  },
  {
    label: 'a certificate part that is not PKCS#7',
    variant: { certificatePart: Buffer.from('0\x82\x01\x00 not a certificate at all', 'latin1') },
    problem: /TrustRequest 1: the certs-only PKCS#7 part cannot be read/,
  },
];

t.test('malformed requests are refused with what is wrong, and nothing is stored', async (t) => {
  const exchanges = await count('cem_exchange');
  const certificates = await count('certificate');
  const profileBefore = (await server.call('GET', `/api/v1/as2/remote-profiles/${alice}`)).body.data;
  for (const [i, c] of malformed.entries()) {
    const { status, receipt, message } = await post(requestEntity(`bad-${i}@alice.example`, c.variant));
    t.equal(status, 200, `${c.label}: answered with a receipt`);
    t.match(receipt, /processed\/Error: unexpected-processing-error/, `${c.label}: the receipt says error`);
    t.equal(message.status, 'Refused', c.label);
    t.match(message.protocols.as2.error, c.problem, `${c.label}: the problem is named`);
    t.match(message.history[0].text, 'Refused: processed/Error: unexpected-processing-error', c.label);
  }
  t.equal(await count('cem_exchange'), exchanges, 'no exchange stored');
  t.equal(await count('certificate'), certificates, 'no certificate stored');
  const profileAfter = (await server.call('GET', `/api/v1/as2/remote-profiles/${alice}`)).body.data;
  t.same(
    profileAfter.signature_certificate_ids,
    profileBefore.signature_certificate_ids,
    'the profile is unchanged',
  );
});

t.test(
  "a certificate with the trusted one's issuer and serial number but another key is refused",
  async (t) => {
    // The twin: alice's subject (self-signed, so also its issuer) and serial number, a new key.
    const aliceSerial = openssl('x509 -in alice.crt -noout -serial').toString().trim().split('=')[1]!;
    openssl(
      `req -x509 -newkey rsa:2048 -nodes -keyout twin.key -out twin.crt -days 400 -set_serial 0x${aliceSerial} -subj`,
      '/O=alice/CN=alice.as2.example',
    );
    openssl('crl2pkcs7 -nocrl -certfile twin.crt -outform DER -out twin.p7c');
    const exchanges = await count('cem_exchange');
    const certificates = await count('certificate');
    const profileBefore = (await server.call('GET', `/api/v1/as2/remote-profiles/${alice}`)).body.data;

    const { status, receipt, message } = await post(
      requestEntity('twin@alice.example', {
        certificatePart: fixtures.read('twin.p7c'),
        xml: (xml) =>
          xml
            .replace('CN=alice-next.as2.example, O=alice', 'CN=alice.as2.example, O=alice')
            .replace(`>${serial}<`, `>${BigInt(`0x${aliceSerial}`).toString()}<`),
      }),
    );
    t.equal(status, 200, 'answered');
    // Refused as a malformed request is: the partner learns from the receipt that nothing was taken.
    t.match(receipt, /processed\/Error: unexpected-processing-error/, 'the receipt says error');
    t.notMatch(receipt, /Received-Content-MIC/i, 'and, as for a malformed request, carries no MIC');
    t.equal(message.status, 'Refused');
    t.match(message.history[0].text, 'Refused: processed/Error: unexpected-processing-error');
    t.match(message.protocols.as2.mdn, { disposition: /processed\/Error: unexpected-processing-error$/ });
    t.match(message.protocols.as2.error, /has another key than certificate/, 'the problem is named');
    t.match(
      message.refusal,
      new RegExp(
        `^Refused: processed/Error: unexpected-processing-error: Certificate exchange request twin@alice.example from alice refused: its certificate with issuer .*alice.* ` +
          `and serial number ${BigInt(`0x${aliceSerial}`)} has another key than certificate ${aliceCert} \\(alice\\), ` +
          'which has the same issuer and serial number',
      ),
      'the refusal names the twin and the trusted certificate',
    );
    t.equal(await count('cem_exchange'), exchanges, 'no exchange stored');
    t.equal(await count('certificate'), certificates, 'no certificate stored');
    const profileAfter = (await server.call('GET', `/api/v1/as2/remote-profiles/${alice}`)).body.data;
    t.same(
      profileAfter.signature_certificate_ids,
      profileBefore.signature_certificate_ids,
      'the list is unchanged',
    );
    const alerts = await sql(
      server.db.url,
      "select summary from alert where code = 'message_refused' and subject_id = $1",
      [message.id],
    );
    t.match(alerts, [{ summary: /another key than certificate/ }], 'message_refused raised');
  },
);
