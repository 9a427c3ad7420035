// Covers the openas2 interop preset (docs/interop.md): chosen on a profile that had the biztalk preset, it switches the options to what OpenAS2 4.x reads (PKCS#1 v1.5 key transport, Content-Transfer-Encoding binary, no chunked framing left behind); the sender's request, captured on loopback and read with `openssl cms`, carries them; the profile page offers the preset; an unknown name is still refused.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { organization, partner, startSender, storeCertificate, type Profile } from '../helpers/as2.js';
import { startCaptureServer } from '../helpers/capture.js';
import { makeFixtures } from '../helpers/certificates.js';
import { upload } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { openUi } from '../ui/helpers.js';

const server = await startTestServer(t, { developerBuild: true });
const f = makeFixtures(t);
f.selfSigned('ours', '/O=acme/CN=acme.example');
f.selfSigned('theirs', '/O=oas2/CN=openas2.example');
const ours = await storeCertificate(server, f, 'ours');
const theirs = await storeCertificate(server, f, 'theirs', false);
const capture = await startCaptureServer(t);
await organization(server, 'acme', 'ACME', ours, 'http://127.0.0.1:9/mdn');
await startSender(server, 'out');

const encrypted: Profile = {
  signing_algorithm: 'sha256',
  encryption_algorithm: 'aes256-cbc',
  compression: false,
  mdn_mode: 'async',
  mdn_signed: true,
};
const id = await partner(server, 'oas2', 'OAS2', `${capture.url}/oas2`, theirs, encrypted, {
  interop_preset: 'biztalk',
});

t.test('switching to openas2 leaves PKCS#1 v1.5, binary and Content-Length', async (t) => {
  const before = await server.call('GET', `/api/v1/as2/remote-profiles/${id}`);
  t.match(before.body.data, { key_transport: 'rsa-oaep', body_framing: 'chunked' }, 'biztalk first');
  const switched = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
    body: { interop_preset: 'openas2' },
  });
  t.equal(switched.status, 200);
  t.match(switched.body.data, {
    interop_preset: 'openas2',
    key_transport: 'rsa-pkcs1',
    transfer_encoding: 'binary',
    body_framing: 'content-length',
  });
});

t.test(
  'the request OpenAS2 gets: RSA PKCS#1 v1.5 key transport, Content-Length, a binary part',
  async (t) => {
    const made = await upload(
      server,
      { from: 'acme', to: 'oas2', target: 'out' },
      { name: 'po.edi', content: "UNB+UNOC:3+ACME+OAS2'\n" },
    );
    t.equal(made.status, 201);
    const request = await capture.next('/oas2');
    t.equal(request.headers['content-length'], String(request.body.length), 'Content-Length framing');
    t.equal(request.headers['transfer-encoding'], undefined, 'not chunked');
    writeFileSync(path.join(f.dir, 'oas2.p7m'), request.body);
    const printed = f.openssl('cms -cmsout -print -inform DER -in oas2.p7m');
    t.match(printed, /algorithm: rsaEncryption/, 'key transport is RSA PKCS#1 v1.5');
    t.notMatch(printed, /rsaesOaep/, 'no OAEP, which OpenAS2 cannot open');
    const decrypted = f.openssl(
      'cms -decrypt -binary -inform DER -in oas2.p7m -recip theirs.crt -inkey theirs.key',
    );
    t.match(decrypted, /multipart\/signed/, 'signed inside');
    t.match(decrypted, /Content-Transfer-Encoding: binary/i, 'the document part says binary');
  },
);

t.test('the profile page offers the preset; an unknown name is refused with the list', async (t) => {
  const ui = await openUi(server);
  const page = await ui.get(`/ui/partners/${id}/profile`);
  t.equal(page.status, 200);
  t.match(page.body, /<option value="openas2"[^>]*>[^<]*OpenAS2 4\.x/);
  const refused = await server.call('PUT', `/api/v1/as2/remote-profiles/${id}`, {
    body: { interop_preset: 'openas3' },
  });
  t.equal(refused.status, 400);
  t.match(refused.body.error.details.interop_preset, /openas2/);
});
