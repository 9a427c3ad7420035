// Covers a running pier as2-receiver taking AS2 messages built by `openssl cms` (signed with every digest, PKCS#1 and PSS, with and without attributes; encrypted with every cipher openssl has, PKCS#1 v1.5, OAEP and OAEP-SHA256 key transport; signed then encrypted) over real HTTP: each is answered 200 with a signed receipt that openssl verifies against pier's certificate, saying `processed` with the MIC openssl computes over the entity as sent (RFC 4130 §7.3.1), and each is stored with the document intact.
import t from 'tap';
import { as2Headers, bobReceives, partner, type Profile } from '../helpers/as2.js';
import type { Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { asHttp, opensslDigest, opensslReadsReceipt, signedPart, writeFixture } from '../helpers/smime.js';
import { makeParties } from './parties.js';

const server = await startTestServer(t);
const parties = makeParties(t);
const { fixtures } = parties;
const openssl = fixtures.openssl;

// bob is the pier organization; alice, the partner, uses openssl.
const { url, aliceCert } = await bobReceives(server, fixtures);
// The receiver insists on what the partner's profile says she does, so one profile per kind.
const profile = (signing: string, encryption: string): Profile => ({
  signing_algorithm: signing,
  encryption_algorithm: encryption,
  compression: false,
  mdn_mode: 'sync',
  mdn_signed: true,
});
const unused = 'http://127.0.0.1:9/as2';
await partner(server, 'alice-signs', 'ALICE-S', unused, aliceCert, profile('sha256', 'none'));
await partner(server, 'alice-encrypts', 'ALICE-E', unused, aliceCert, profile('none', 'aes256-cbc'));
await partner(server, 'alice-both', 'ALICE-SE', unused, aliceCert, profile('sha256', 'aes256-cbc'));

interface Signing {
  /** openssl's digest name, also the MIC algorithm asked for. */
  md: 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512';
  extra?: string[];
}
interface Encryption {
  flag: string;
  /** pier's name for the content encryption. */
  algorithm: string;
  keyopts?: string[];
  transport: 'rsa-pkcs1' | 'rsa-oaep';
}
interface Case {
  label: string;
  sign?: Signing;
  encrypt?: Encryption;
  /** Send openssl's base64 body as it wrote it instead of binary. */
  base64?: boolean;
}

const ciphers: Omit<Encryption, 'transport'>[] = [
  { flag: '-des3', algorithm: '3des' },
  { flag: '-aes128', algorithm: 'aes128-cbc' },
  { flag: '-aes192', algorithm: 'aes192-cbc' },
  { flag: '-aes256', algorithm: 'aes256-cbc' },
  { flag: '-aes-128-gcm', algorithm: 'aes128-gcm' },
  { flag: '-aes-192-gcm', algorithm: 'aes192-gcm' },
  { flag: '-aes-256-gcm', algorithm: 'aes256-gcm' },
  // RC2 lives in OpenSSL 3's legacy provider.
  { flag: '-rc2', algorithm: 'rc2-cbc', keyopts: ['-provider', 'legacy', '-provider', 'default'] },
];
const transports: { keyopts: string[]; transport: Encryption['transport']; name: string }[] = [
  { keyopts: [], transport: 'rsa-pkcs1', name: 'PKCS#1 v1.5' },
  { keyopts: ['-keyopt', 'rsa_padding_mode:oaep'], transport: 'rsa-oaep', name: 'OAEP' },
  {
    keyopts: ['-keyopt', 'rsa_padding_mode:oaep', '-keyopt', 'rsa_oaep_md:sha256'],
    transport: 'rsa-oaep',
    name: 'OAEP-SHA256',
  },
];
const digests: Signing['md'][] = ['sha1', 'sha224', 'sha256', 'sha384', 'sha512'];

const cases: Case[] = [
  ...digests.map((md) => ({ label: `signed ${md}`, sign: { md } })),
  { label: 'signed sha256 RSASSA-PSS', sign: { md: 'sha256', extra: ['-keyopt', 'rsa_padding_mode:pss'] } },
  { label: 'signed sha256 without signed attributes', sign: { md: 'sha256', extra: ['-noattr'] } },
  ...ciphers.map((c) => ({
    label: `encrypted ${c.flag}`,
    encrypt: { ...c, transport: 'rsa-pkcs1' as const },
  })),
  {
    label: 'encrypted -aes128, base64 as openssl wrote it',
    encrypt: { ...ciphers[1]!, transport: 'rsa-pkcs1' },
    base64: true,
  },
];
let n = 0;
for (const c of ciphers) {
  for (const k of transports) {
    const md = digests[n++ % digests.length]!;
    cases.push({
      label: `signed ${md}, encrypted ${c.flag} ${k.name}`,
      sign: { md },
      encrypt: { ...c, keyopts: [...k.keyopts, ...(c.keyopts ?? [])], transport: k.transport },
    });
  }
}

/** RFC 5751 spelling of a digest in Disposition-Notification-Options and Received-Content-MIC. */
const micName = (md: Signing['md']) => md.replace('sha', 'sha-');

/** One field of the disposition notification openssl took out of the receipt. */
function field(report: string, name: string): string | undefined {
  return new RegExp(`^${name}:[ \\t]*(.*?)\\r?$`, 'im').exec(report)?.[1];
}

async function inbound(as2MessageId: string): Promise<Message> {
  const list = await server.call('GET', '/api/v1/messages?limit=100');
  return (list.body.data.messages as Message[]).find((m) => m.protocols.as2?.message_id === as2MessageId);
}

t.test('openssl → pier receiver, every algorithm openssl has', async (t) => {
  let number = 0;
  for (const c of cases) {
    const label = c.label;
    const id = `<openssl-${++number}@alice.example>`;
    const document = Buffer.from(
      `ISA*00*${label}~\r\nGS*PO*ALICE*BOB~\nST*850*${number}~\r\n\u00e9\u00ff\r\n`,
      'latin1',
    );
    const entity = Buffer.concat([
      Buffer.from(
        'Content-Type: application/edi-x12\r\nContent-Transfer-Encoding: binary\r\n' +
          `Content-Disposition: attachment; filename="case-${number}.edi"\r\n\r\n`,
      ),
      document,
    ]);
    writeFixture(fixtures, 'entity.mime', entity);
    let content = 'entity.mime';
    if (c.sign) {
      openssl(
        `cms -sign -binary -in entity.mime -signer alice.crt -inkey alice.key -md ${c.sign.md} -out signed.eml`,
        ...(c.sign.extra ?? []),
      );
      const signed = fixtures.read('signed.eml');
      const contentType = asHttp(signed).headers['Content-Type']!;
      t.same(signedPart(signed, contentType), entity, `${label}: openssl signed the entity byte for byte`);
      content = 'signed.eml';
    }
    let sent = fixtures.read(content);
    if (c.encrypt) {
      openssl(
        `cms -encrypt -binary -in ${content} ${c.encrypt.flag} -out encrypted.eml -recip bob.crt`,
        ...(c.encrypt.keyopts ?? []),
      );
      sent = fixtures.read('encrypted.eml');
    }
    const request = asHttp(sent, { binary: !c.base64 });
    // The MIC covers the signed entity when signed, else the decrypted entity: here both are entity.mime.
    const micalg = micName(c.sign?.md ?? 'sha256');
    const mic = `${opensslDigest(fixtures, c.sign?.md ?? 'sha256', 'entity.mime')}, ${micalg}`;

    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        ...as2Headers(c.sign && c.encrypt ? 'ALICE-SE' : c.sign ? 'ALICE-S' : 'ALICE-E', id, micalg),
        ...request.headers,
      },
      body: new Uint8Array(request.body),
    });
    t.equal(answer.status, 200, `${label}: HTTP 200`);
    const contentType = answer.headers.get('content-type') ?? '';
    t.match(contentType, /^multipart\/signed/i, `${label}: a signed receipt`);
    const report = await opensslReadsReceipt(fixtures, answer, 'bob.crt');
    if (number === 1)
      t.throws(
        () => openssl('cms -verify -in mdn.eml -CAfile mallory.crt -purpose any -out refused.txt'),
        'the receipt does not verify against another certificate',
      );
    t.equal(field(report, 'Original-Message-ID'), id, `${label}: receipt for this message`);
    t.equal(
      field(report, 'Disposition'),
      'automatic-action/MDN-sent-automatically; processed',
      `${label}: processed`,
    );
    t.equal(field(report, 'Received-Content-MIC'), mic, `${label}: MIC = openssl dgst of the entity`);

    const stored = await inbound(id);
    t.equal(stored?.status, 'NotRouted', `${label}: stored, no route`);
    t.equal(stored?.refusal, null);
    t.equal(stored?.file_name, `case-${number}.edi`);
    const unpacked = await server.call('GET', `/api/v1/messages/${stored.id}/payload?stage=unpacked`);
    t.same(unpacked.bytes, document, `${label}: the document arrived intact`);
    const as2 = stored.protocols.as2;
    t.equal(as2.mic, mic, `${label}: the stored MIC`);
    t.equal(as2.signed, Boolean(c.sign));
    if (c.sign) {
      t.equal(as2.signature.algorithm, micName(c.sign.md), `${label}: digest`);
      t.equal(as2.signature.scheme, c.sign.extra?.includes('rsa_padding_mode:pss') ? 'rsa-pss' : 'rsa-pkcs1');
      t.equal(as2.signature.signed_attributes, !c.sign.extra?.includes('-noattr'));
    }
    t.equal(as2.encrypted, Boolean(c.encrypt));
    if (c.encrypt) {
      t.equal(as2.encryption.algorithm, c.encrypt.algorithm, `${label}: cipher`);
      t.equal(as2.encryption.key_transport, c.encrypt.transport, `${label}: key transport`);
    }
    t.equal(as2.mdn.disposition, 'automatic-action/MDN-sent-automatically; processed');
    t.equal(as2.mdn.signed, true);
  }
});
