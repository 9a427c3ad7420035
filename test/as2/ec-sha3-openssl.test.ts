// Covers ECDSA (P-256, P-384, P-521) with SHA-2 and SHA-3 digests and RSA with SHA3-256/384/512, both ways with `openssl cms`: messages openssl signs (ECDSA with SHA-3, which openssl 3.0 cannot sign, built with node:crypto and hand-written DER) are processed by a running pier receiver with the MIC `openssl dgst` computes, and the receipts pier signs with its EC key verify with openssl; messages pier's sender signs with its EC key verify with `openssl cms -verify`, and the receipts openssl signs with the partner's EC key deliver them.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import t from 'tap';
import { bobSendsAndReceives, partner, storeCertificate } from '../helpers/as2.js';
import { makeFixtures } from '../helpers/certificates.js';
import { sendByHand } from '../helpers/flow.js';
import { handSignedEcdsaSha3 } from '../helpers/hand-cms.js';
import { startTestServer } from '../helpers/server.js';
import {
  asHttp,
  asMessage,
  micalgOf,
  opensslMic,
  postForReceipt,
  receiptProcessed,
  startOpensslPeer,
  writeFixture,
} from '../helpers/smime.js';

const server = await startTestServer(t);
const fixtures = makeFixtures(t);
const openssl = fixtures.openssl;
fixtures.ec('bob', 'P-256');
fixtures.ec('alice256', 'P-256');
fixtures.ec('alice384', 'P-384');
fixtures.ec('alice521', 'P-521');
openssl(
  'req -x509 -newkey rsa:2048 -nodes -keyout alicersa.key -out alicersa.crt -days 30 -subj',
  '/CN=alicersa',
);

// bob signs with its P-256 key; decryption (unused here) names an RSA certificate.
const { url, certs: bobCerts } = await bobSendsAndReceives(server, fixtures, 'bob', ['alicersa']);
const signsOnly = {
  encryption_algorithm: 'none',
  compression: false,
  mdn_mode: 'sync' as const,
  mdn_signed: true,
};
// Messages are not encrypted: the EC certificates only verify signatures.
const noEncryptionCertificate = { partner_certificate_id: null };
const alices = ['alice256', 'alice384', 'alice521', 'alicersa'] as const;
const certs: Record<string, number> = {};
for (const name of alices) {
  certs[name] =
    name === 'alicersa' ? bobCerts.alicersa! : await storeCertificate(server, fixtures, name, false);
  await partner(
    server,
    name,
    name.toUpperCase(),
    url,
    certs[name]!,
    { ...signsOnly, signing_algorithm: 'sha256' },
    noEncryptionCertificate,
  );
}

const entity = Buffer.from(
  'Content-Type: application/edi-x12\r\nContent-Transfer-Encoding: binary\r\n\r\nISA*00*EC~\r\nIEA*1~\r\n',
);
writeFixture(fixtures, 'entity.mime', entity);

const inbound: [string, string][] = [
  ['alice256', 'sha256'],
  ['alice384', 'sha384'],
  ['alice521', 'sha512'],
  ['alice256', 'sha3-256'],
  ['alice384', 'sha3-384'],
  ['alice521', 'sha3-512'],
  ['alicersa', 'sha3-256'],
  ['alicersa', 'sha3-384'],
  ['alicersa', 'sha3-512'],
];
let number = 0;

function opensslMade(signer: string, md: string) {
  openssl(
    `cms -sign -binary -in entity.mime -signer ${signer}.crt -inkey ${signer}.key -md ${md} -out signed.eml`,
  );
  return asHttp(fixtures.read('signed.eml'));
}

/** ECDSA with SHA-3, which openssl 3.0's cms cannot sign: node:crypto and DER written by hand. */
function handMade(signer: string, md: string) {
  const signature = handSignedEcdsaSha3(entity, {
    certificate: new X509Certificate(fixtures.read(`${signer}.crt`)),
    key: createPrivateKey(fixtures.read(`${signer}.key`)),
    hash: md as 'sha3-256',
  });
  const boundary = 'hand-made';
  const base64 = signature.toString('base64').replace(/.{76}/g, '$&\r\n');
  return {
    headers: {
      'Content-Type': `multipart/signed; protocol="application/pkcs7-signature"; micalg=${md}; boundary="${boundary}"`,
    },
    body: Buffer.concat([
      Buffer.from(`--${boundary}\r\n`),
      entity,
      Buffer.from(
        `\r\n--${boundary}\r\nContent-Type: application/pkcs7-signature\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64}\r\n--${boundary}--\r\n`,
      ),
    ]),
  };
}

for (const [signer, md] of inbound) {
  t.test(`openssl → pier: ${signer} signs with ${md}`, async (t) => {
    const request =
      md.startsWith('sha3-') && signer !== 'alicersa' ? handMade(signer, md) : opensslMade(signer, md);
    // pier's receipt, signed with its P-256 key, verified by openssl.
    const posted = await postForReceipt(fixtures, url, 'bob.crt', {
      from: signer.toUpperCase(),
      id: `<ec-${++number}@alice.example>`,
      micalg: micalgOf(md),
      ...request,
    });
    receiptProcessed(t, posted, opensslMic(fixtures, md, 'entity.mime'));
    openssl('cms -cmsout -print -in mdn.eml -out printed.txt');
    t.match(
      fixtures.read('printed.txt').toString(),
      /algorithm: ecdsa-with-SHA\d+/,
      'the receipt is signed ECDSA',
    );
  });
}

const outbound = [
  ['sha256', 'alice256'],
  ['sha384', 'alice384'],
  ['sha3-256', 'alice256'],
  ['sha3-512', 'alice384'],
] as const;
/** The peer verifies pier's signature and signs its receipts with alice256's or alice384's EC key. */
const peer = await startOpensslPeer(t, fixtures, {
  signerCert: 'bob.crt',
  keys: Object.fromEntries(outbound.map(([algorithm, signer]) => [`OUT-${algorithm.toUpperCase()}`, signer])),
  open: (request) => ({
    entity: asMessage({ 'Content-Type': request.headers['content-type']! }, request.body),
    noted: {},
  }),
  receiptMd: 'sha384',
});

for (const [algorithm, signer] of outbound) {
  t.test(`pier → openssl: ECDSA P-256 with ${algorithm}, receipt signed by ${signer}`, async (t) => {
    const name = `out-${algorithm}`;
    await partner(
      server,
      name,
      name.toUpperCase(),
      peer.url,
      certs[signer]!,
      {
        ...signsOnly,
        signing_algorithm: algorithm,
      },
      noEncryptionCertificate,
    );
    const sent = await sendByHand(
      server,
      { from: 'bob', to: name, target: 'out' },
      { name: `${name}.edi`, content: "UNB+UNOC:3+BOB+ALICE'\r\n" },
    );
    peer.deliveredAndRead(t, sent, 'openssl verified the ECDSA signature');
  });
}
