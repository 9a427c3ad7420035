// Covers a running pier as2-receiver applying the partner profile's inbound policy, independent of what pier sends to the partner, to messages built by `openssl cms`: an unsigned, unencrypted message is processed when inbound_signature and inbound_encryption are optional although pier signs and encrypts what it sends, and refused (insufficient-message-security) under the secure defaults although pier sends unsigned; with inbound_algorithms modern a SHA-1 signature and 3DES encryption are refused and SHA-256 with AES accepted.
import t from 'tap';
import { bobReceives, partner, type Profile } from '../helpers/as2.js';
import { startTestServer } from '../helpers/server.js';
import { asHttp, writeFixture } from '../helpers/smime.js';
import { makeParties } from './parties.js';

const server = await startTestServer(t);
const parties = makeParties(t);
const { fixtures } = parties;
const openssl = fixtures.openssl;

const { url, aliceCert } = await bobReceives(server, fixtures);
const unused = 'http://127.0.0.1:9/as2';
const sends = (signing: string, encryption: string): Profile => ({
  signing_algorithm: signing,
  encryption_algorithm: encryption,
  compression: false,
  mdn_mode: 'sync',
  mdn_signed: true,
});
// The helper's partner() mirrors outbound into inbound; these set the inbound policy themselves.
await partner(server, 'lenient', 'LENIENT', unused, aliceCert, sends('sha256', 'aes256-cbc'), {
  inbound_signature: 'optional',
  inbound_encryption: 'optional',
});
const made = await server.call('POST', '/api/v1/partners', { body: { name: 'strict' } });
const strict = await server.call('POST', '/api/v1/as2/remote-profiles', {
  body: {
    business_partner_id: made.body.data.id,
    as2id: 'STRICT',
    endpoint: unused,
    partner_certificate_id: aliceCert,
    ...sends('none', 'none'),
  },
});
// A profile sending unsigned and unencrypted, its inbound policy left at the defaults.
if (strict.status !== 201) throw new Error(strict.raw);
await partner(server, 'modern', 'MODERN', unused, aliceCert, sends('sha256', 'aes256-cbc'), {
  inbound_algorithms: 'modern',
});

const entity = Buffer.from(
  'Content-Type: application/edi-x12\r\nContent-Transfer-Encoding: binary\r\n\r\nISA*00*POLICY~\r\n',
);
writeFixture(fixtures, 'entity.mime', entity);
let number = 0;

/** Posts `message` (headers and body as openssl wrote it, or the bare entity) from `from`; answers the Disposition. */
async function post(from: string, message: Buffer): Promise<string> {
  const request = asHttp(message, { binary: true });
  const answer = await fetch(url, {
    method: 'POST',
    headers: {
      'AS2-Version': '1.2',
      'AS2-From': from,
      'AS2-To': 'BOB',
      'Message-ID': `<policy-${++number}@alice.example>`,
      'Disposition-Notification-To': 'edi@alice.example',
      'Disposition-Notification-Options':
        'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
      ...request.headers,
    },
    body: new Uint8Array(request.body),
  });
  if (answer.status !== 200) throw new Error(`HTTP ${answer.status}`);
  const text = Buffer.from(await answer.arrayBuffer()).toString('latin1');
  return /Disposition: *([^\r\n]*)/.exec(text)?.[1] ?? `no disposition in ${text.slice(0, 200)}`;
}

const signed = (md: string) => {
  openssl(`cms -sign -binary -in entity.mime -signer alice.crt -inkey alice.key -md ${md} -out signed.eml`);
  return fixtures.read('signed.eml');
};
const encrypted = (file: string, cipher: string) => {
  openssl(`cms -encrypt -binary -in ${file} ${cipher} -out encrypted.eml -recip bob.crt`);
  return fixtures.read('encrypted.eml');
};
const processed = 'automatic-action/MDN-sent-automatically; processed';
const insufficient = `${processed}/Error: insufficient-message-security`;

t.test(
  'inbound optional: an unsigned, unencrypted message is processed though pier signs and encrypts',
  async (t) => {
    t.equal(await post('LENIENT', entity), processed);
  },
);

t.test('inbound defaults: an unsigned message is refused though pier sends unsigned', async (t) => {
  t.equal(await post('STRICT', entity), insufficient);
  writeFixture(fixtures, 'signed-only.eml', signed('sha256'));
  t.equal(await post('STRICT', fixtures.read('signed-only.eml')), insufficient, 'signed but not encrypted');
  t.equal(await post('STRICT', encrypted('signed-only.eml', '-aes256')), processed, 'signed and encrypted');
});

t.test('inbound_algorithms modern: SHA-1 and 3DES refused, SHA-256 with AES processed', async (t) => {
  writeFixture(fixtures, 'sha1.eml', signed('sha1'));
  t.equal(await post('MODERN', encrypted('sha1.eml', '-aes256')), insufficient, 'SHA-1 signature');
  writeFixture(fixtures, 'sha256.eml', signed('sha256'));
  t.equal(await post('MODERN', encrypted('sha256.eml', '-des3')), insufficient, '3DES encryption');
  t.equal(await post('MODERN', encrypted('sha256.eml', '-aes128')), processed, 'SHA-256 and AES-128');
  const list = await server.call('GET', '/api/v1/messages?limit=100');
  const refusals = (list.body.data.messages as { refusal: string | null }[]).map((m) => m.refusal ?? '');
  t.ok(
    refusals.some((r) => r.includes('signed with sha-1')),
    'the refusal names SHA-1',
  );
  t.ok(
    refusals.some((r) => r.includes('encrypted with 3des')),
    'the refusal names 3DES',
  );
});
