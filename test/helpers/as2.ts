/** Setting up pier for AS2 tests over its API: certificates, receiver and senders, parties with profiles. */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Test } from 'tap';
import { makeFixtures, type Fixtures } from './certificates.js';
import { formatDispositionNotificationOptions } from '../../actors/as2/index.js';
import { must, type Message } from './flow.js';
import type { Answer, TestServer } from './server.js';
import { uploadCertificate } from './upload.js';
import { freePort } from './free-port.js';
import { startPeer, type PeerAnswer, type PeerRequest } from './http-peer.js';

export { freePort };

export async function storeCertificate(
  server: TestServer,
  f: Fixtures,
  name: string,
  withKey = true,
): Promise<number> {
  const answer = await uploadCertificate(server, {
    certificate: f.read(`${name}.crt`),
    ...(withKey ? { private_key: f.read(`${name}.key`) } : {}),
    description: name,
  });
  if (answer.status !== 201) throw new Error(`upload of ${name} failed: ${answer.raw}`);
  return answer.body.data.id as number;
}

/** An as2-receiver on a free loopback port, started; returns its URL (https with a tls_certificate_id). */
export async function startReceiver(
  server: TestServer,
  name = 'in',
  settings: Record<string, unknown> = {},
): Promise<string> {
  const port = await freePort();
  // An enabled configuration starts at once: its state is in the answer.
  const made = await must(server, '/plugins/configs?type=as2-receiver', {
    name,
    host: '127.0.0.1',
    port,
    path: '/as2',
    ...settings,
  });
  running(made);
  return `${settings.tls_certificate_id ? 'https' : 'http'}://127.0.0.1:${port}/as2`;
}

export async function startSender(server: TestServer, name: string, settings: Record<string, unknown> = {}) {
  const made = await must(server, '/plugins/configs?type=as2-sender', {
    name,
    max_attempts: 1,
    ...settings,
  });
  running(made);
}

/**
 * What a pier → pier test on one server starts from: fixtures removed when `t` ends, with the
 * self-signed certificate `pier` (both sides' key) made and stored, and the receiver `in`
 * started; `more` makes the test's other fixtures first. Its certificate id and receiver URL.
 */
export async function pierToItself(
  t: Pick<Test, 'teardown'>,
  server: TestServer,
  more: (f: Fixtures) => void = () => {},
): Promise<{ f: Fixtures; cert: number; url: string }> {
  const f = makeFixtures(t);
  f.selfSigned('pier', '/O=pier/CN=pier.example');
  more(f);
  const cert = await storeCertificate(server, f, 'pier');
  return { f, cert, url: await startReceiver(server) };
}

/**
 * `pierToItself` with agreement `x` (`syncSigned`) and a certificate `other` that nobody
 * trusts, for tests that pack messages by hand and post them as partner Sx: also pier's
 * certificate and key and the stranger's certificate, as the AS2 library takes them.
 */
export async function handPackedToItself(t: Pick<Test, 'teardown'>, server: TestServer) {
  const made = await pierToItself(t, server, (f) => f.selfSigned('other', '/O=other/CN=other.example'));
  await agreement(server, 'x', made.url, made.cert, syncSigned);
  return {
    ...made,
    pierCert: new X509Certificate(made.f.read('pier.crt')),
    pierKey: createPrivateKey(made.f.read('pier.key')),
    otherCert: new X509Certificate(made.f.read('other.crt')),
  };
}

/** The answer to a create: its instance started, or the reason it did not. */
function running(made: Answer): void {
  const service = made.body.data.service as { status: string; error: string | null } | null;
  if (service?.status !== 'running') throw new Error(`not started: ${JSON.stringify(service)}`);
}

export interface Profile {
  signing_algorithm: string;
  encryption_algorithm: string;
  compression: boolean;
  mdn_mode: 'sync' | 'async' | 'none';
  mdn_signed: boolean;
}

/** SHA-256 signed, AES-256-CBC, uncompressed, with a signed synchronous receipt. */
export const syncSigned: Profile = {
  signing_algorithm: 'sha256',
  encryption_algorithm: 'aes256-cbc',
  compression: false,
  mdn_mode: 'sync',
  mdn_signed: true,
};

/** `syncSigned` with the payload compressed before signing. */
export const syncSignedCompressed: Profile = { ...syncSigned, compression: true };

/** `syncSigned` with the signed receipt sent asynchronously. */
export const asyncSigned: Profile = { ...syncSigned, mdn_mode: 'async' };

/** An organization with a local profile signing with `cert`, `local` adding to it; returns its id. */
export async function organization(
  server: TestServer,
  name: string,
  as2id: string,
  cert: number,
  asyncUrl = '',
  local: Record<string, unknown> = {},
) {
  const org = await must(server, '/organizations', { name });
  await must(server, '/as2/local-profiles', {
    local_organization_id: org.body.data.id,
    as2id,
    signing_certificate_id: cert,
    async_mdn_url: asyncUrl,
    ...local,
  });
  return org.body.data.id as number;
}

/** A partner with a remote profile; returns its id. */
export async function partner(
  server: TestServer,
  name: string,
  as2id: string,
  endpoint: string,
  cert: number,
  profile: Profile,
  extra: Record<string, unknown> = {},
) {
  const made = await must(server, '/partners', { name });
  await must(server, '/as2/remote-profiles', {
    business_partner_id: made.body.data.id,
    as2id,
    endpoint,
    partner_certificate_id: cert,
    signature_certificate_ids: [cert],
    ...profile,
    // What the partner must send mirrors what it is sent, as before inbound policies existed;
    // tests of the inbound policy set these fields in `extra`.
    inbound_signature: profile.signing_algorithm === 'none' ? 'optional' : 'required',
    inbound_encryption: profile.encryption_algorithm === 'none' ? 'optional' : 'required',
    ...extra,
  });
  return made.body.data.id as number;
}

/**
 * The receiving side of the tests where alice sends as openssl does (the certificates of
 * as2/parties.ts): bob's certificate with its key and alice's without stored, the receiver
 * `receiver` started and organization bob (AS2 id BOB) made; alice's partner profiles are the
 * test's. Answers the receiver's URL and alice's certificate id.
 */
export async function bobReceives(
  server: TestServer,
  fixtures: Fixtures,
  receiver = 'in',
): Promise<{ url: string; aliceCert: number }> {
  const bobCert = await storeCertificate(server, fixtures, 'bob');
  const aliceCert = await storeCertificate(server, fixtures, 'alice', false);
  const url = await startReceiver(server, receiver);
  await organization(server, 'bob', 'BOB', bobCert);
  return { url, aliceCert };
}

/**
 * Both directions with bob (AS2 id BOB): organization bob signing with the fixtures' `signing`
 * and decrypting with `decrypting` (each stored with its key), receiver `in` and sender `out`
 * started; the partners are the test's. Answers the receiver's URL and the certificates' ids by name.
 */
export async function bobSendsAndReceives(
  server: TestServer,
  fixtures: Fixtures,
  signing: string,
  decrypting: string[],
): Promise<{ url: string; certs: Record<string, number> }> {
  const certs: Record<string, number> = {};
  for (const name of new Set([signing, ...decrypting]))
    certs[name] = await storeCertificate(server, fixtures, name);
  await organization(server, 'bob', 'BOB', certs[signing]!, '', {
    decryption_certificate_ids: decrypting.map((name) => certs[name]),
  });
  const url = await startReceiver(server);
  await startSender(server, 'out');
  return { url, certs };
}

/**
 * A receiver `as2in` for organization bob (AS2 id BOB) and partner alice (ALICE), who sends as
 * `openssl cms -encrypt` does: encrypted with AES-256, not signed or compressed, asking for a
 * signed synchronous receipt. Answers the receiver's URL.
 */
export async function aliceEncryptsToBob(server: TestServer, fixtures: Fixtures): Promise<string> {
  const { url, aliceCert } = await bobReceives(server, fixtures, 'as2in');
  await partner(server, 'alice', 'ALICE', 'http://127.0.0.1:9/as2', aliceCert, {
    signing_algorithm: 'none',
    encryption_algorithm: 'aes256-cbc',
    compression: false,
    mdn_mode: 'sync',
    mdn_signed: true,
  });
  return url;
}

export interface AgreementOptions {
  /** The receiving side's profile of the sender, where the two sides disagree on purpose. */
  theirs?: Profile;
  /** The sending organization's async_mdn_url; `url` when left out. */
  receiptsTo?: string;
}

/**
 * Both sides of one agreement in one pier: `s<tag>` sends to `r<tag>` at `url`, whose
 * receiving side is `ro<tag>` knowing the sender as `sp<tag>`; AS2 names `S<tag>` and `R<tag>`.
 * `sending` adds fields to the profile pier sends with (interop options, as2bis, certificates,
 * receipt timeout). Returns the ids of the sending organization and of the partner it sends to.
 */
export async function agreement(
  server: TestServer,
  tag: string,
  url: string,
  cert: number,
  profile: Profile,
  sending: Record<string, unknown> = {},
  options: AgreementOptions = {},
): Promise<{ organization: number; partner: number }> {
  const organizationId = await organization(server, `s${tag}`, `S${tag}`, cert, options.receiptsTo ?? url);
  const partnerId = await partner(server, `r${tag}`, `R${tag}`, url, cert, profile, sending);
  await organization(server, `ro${tag}`, `R${tag}`, cert);
  await partner(server, `sp${tag}`, `S${tag}`, url, cert, options.theirs ?? profile);
  return { organization: organizationId, partner: partnerId };
}

/**
 * The AS2 headers of a message from `from` to `to` (bob) asking a signed synchronous receipt
 * with the MIC in `micalg`, as the tests' messages built with openssl or by hand send them.
 */
export function as2Headers(
  from: string,
  messageId: string,
  micalg = 'sha-256',
  to = 'BOB',
): Record<string, string> {
  return {
    'AS2-Version': '1.2',
    'AS2-From': from,
    'AS2-To': to,
    'Message-ID': messageId,
    'Disposition-Notification-To': 'edi@alice.example',
    'Disposition-Notification-Options': `signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, ${micalg}`,
  };
}

/**
 * Posts an AS2 message to a receiver as partner `Sx` to organization `Rx` (the sending side
 * of `agreement(server, 'x', …)`), asking a receipt signed with SHA-256; `headers` add or win.
 */
export async function postAs2(url: string, body: Buffer, headers: Record<string, string>) {
  const answer = await fetch(url, {
    method: 'POST',
    headers: {
      'AS2-Version': '1.2',
      'AS2-From': 'Sx',
      'AS2-To': 'Rx',
      'Disposition-Notification-To': 'mailto:x@example',
      'Disposition-Notification-Options': formatDispositionNotificationOptions(['sha-256']),
      ...headers,
    },
    body: new Uint8Array(body),
  });
  const bytes = Buffer.from(await answer.arrayBuffer());
  return { status: answer.status, headers: Object.fromEntries(answer.headers), body: bytes };
}

/** The stored message whose AS2 Message-ID is `as2Id`, among the latest hundred. */
export async function messageByAs2Id(server: TestServer, as2Id: string): Promise<Message> {
  const list = await server.call('GET', '/api/v1/messages?limit=100');
  return (list.body.data.messages as Message[]).find((m) => m.protocols.as2?.message_id === as2Id);
}

/**
 * Organization bob (BOB) signing with the fixtures' `bob`, and a peer on 127.0.0.1 that plays
 * alice by `answer`: the tests of what pier's sender makes of another implementation's answers.
 * Answers the peer and the id of alice's certificate (`alice`), for her profiles.
 */
export async function bobAndAlicePeer(
  t: Test,
  server: TestServer,
  fixtures: Fixtures,
  answer: (request: PeerRequest, index: number) => PeerAnswer | Promise<PeerAnswer>,
) {
  const peer = await startPeer(t, answer);
  const bobCert = await storeCertificate(server, fixtures, 'bob');
  const aliceCert = await storeCertificate(server, fixtures, 'alice', false);
  await organization(server, 'bob', 'BOB', bobCert);
  return { peer, aliceCert };
}

/**
 * One pier that sends AS2 to itself, as the browser tests over real AS2 start: certificate `as2`,
 * receiver `in`, sender `out` and agreement 1 (`syncSigned`) from organization s1 to partner r1.
 */
export async function browserAs2Loop(
  t: Pick<Test, 'teardown'>,
  server: TestServer,
): Promise<{ fixtures: Fixtures; partner: number }> {
  const fixtures = makeFixtures(t);
  fixtures.selfSigned('as2', '/CN=pier-as2/O=Pier');
  const cert = await storeCertificate(server, fixtures, 'as2');
  const url = await startReceiver(server, 'in');
  await startSender(server, 'out');
  const { partner } = await agreement(server, '1', url, cert, syncSigned);
  return { fixtures, partner };
}
