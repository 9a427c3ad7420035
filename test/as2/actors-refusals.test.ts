// Covers the as2-receiver's answers to bad input and duplicates over real HTTP: tampered body, wrong certificate, unknown AS2-To/AS2-From, unsigned when signing is required, malformed MIME, absurd and missing headers, too-large bodies; each gets the right MDN or HTTP 4xx and the right message status, and the receiver keeps working. A duplicate Message-ID of a processed message is answered with the stored receipt and noted, not routed again; a resend after an error is taken.
import type { X509Certificate } from 'node:crypto';
import t, { type Test } from 'tap';
import { packOutgoing, parseMdn, formatDispositionNotificationOptions } from '../../actors/as2/index.js';
import { handPackedToItself, messageByAs2Id, postAs2 } from '../helpers/as2.js';
import type { Message } from '../helpers/flow.js';
import { sql } from '../helpers/database.js';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const { url, pierCert, pierKey, otherCert } = await handPackedToItself(t, server);

let counter = 0;
function message(options: { sign?: boolean; encryptTo?: X509Certificate | null } = {}) {
  const packed = packOutgoing(Buffer.from('ISA*00*TEST~\n'), {
    filename: 'order.x12',
    sign:
      options.sign === false ? null : { algorithm: 'sha-256', certificate: pierCert, privateKey: pierKey },
    encrypt:
      options.encryptTo === null
        ? null
        : { algorithm: 'aes256-cbc', certificate: options.encryptTo ?? pierCert },
  });
  return { packed, id: `<refusal-${++counter}@test>` };
}

const post = (body: Buffer, headers: Record<string, string>) => postAs2(url, body, headers);

const statusOf = (as2Id: string) => messageByAs2Id(server, as2Id);

async function expectRefusal(t: Test, body: Buffer, headers: Record<string, string>, modifier: string) {
  const answer = await post(body, headers);
  t.equal(answer.status, 200);
  t.match(answer.headers.server, /^pier\//, 'Server header per 2.11');
  const mdn = parseMdn(answer.body, answer.headers, { verificationCerts: [pierCert] });
  t.match(
    mdn.fields.get('disposition'),
    new RegExp(`processed/error: ${modifier}$`, 'i'),
    `MDN says ${modifier}`,
  );
  const stored = await statusOf(headers['Message-ID']!);
  t.equal(stored?.status, 'Refused');
  t.match(stored?.refusal, new RegExp(`processed/error: ${modifier}`, 'i'));
  const alerts = await sql(
    server.db.url,
    "select * from alert where code = 'message_refused' and subject_id = $1",
    [stored?.id],
  );
  t.match(alerts, [{ severity: 'warning', summary: new RegExp(modifier, 'i') }], 'message_refused raised');
}

t.test('accepted: a good message gets processed', async (t) => {
  const { packed, id } = message();
  const answer = await post(packed.body, { ...packed.headers, 'Message-ID': id });
  const mdn = parseMdn(answer.body, answer.headers, { verificationCerts: [pierCert], requireSigned: true });
  t.match(mdn.fields.get('disposition'), /processed$/);
  t.ok(mdn.signature?.verified);
  t.equal(mdn.mic?.digest.toString('base64'), packed.mic.digest.toString('base64'), 'the MIC');
  const stored = await statusOf(id);
  t.equal(stored.status, 'NotRouted');
  t.match(
    stored.protocols.as2,
    {
      signed: true,
      signature: { algorithm: 'sha-256' },
      encrypted: true,
      encryption: { algorithm: 'aes256-cbc' },
      compressed: false,
      mic: `${packed.mic.digest.toString('base64')}, sha-256`,
      mic_algorithm: 'sha-256',
    },
    'protocols.as2 says what protected it and its MIC',
  );
  t.ok(
    stored.payloads.received &&
      stored.payloads.headers &&
      stored.payloads.unpacked &&
      stored.payloads.receipt,
  );
  const receipt = await server.call('GET', `/api/v1/messages/${stored.id}/payload?stage=receipt`);
  t.match(receipt.headers['content-disposition'], `${stored.id}-receipt.eml`);
  const whole = await server.call('GET', `/api/v1/messages/${stored.id}/payload?stage=message`);
  t.match(whole.raw, /AS2-From: Sx/i);

  t.test('the same Message-ID again: the stored receipt, not routed again', async (t) => {
    const again = await post(packed.body, { ...packed.headers, 'Message-ID': id });
    t.same(again.body, answer.body, 'the receipt as sent before');
    const list = await server.call('GET', '/api/v1/messages?limit=100');
    const same = (list.body.data.messages as Message[]).filter((m) => m.protocols.as2?.message_id === id);
    t.equal(same.length, 1, 'no second message');
    const earlier = await server.call('GET', `/api/v1/messages/${stored.id}`);
    t.ok(earlier.body.data.history.some((h: Message) => h.kind === 'duplicate_received'));
  });
});

t.test('tampered body: integrity-check-failed', async (t) => {
  const { packed, id } = message({ encryptTo: null });
  const body = Buffer.from(packed.body.toString('latin1').replace('ISA*00*TEST', 'ISA*00*EVIL'), 'latin1');
  await expectRefusal(t, body, { ...packed.headers, 'Message-ID': id }, 'integrity-check-failed');
});

t.test('encrypted for another certificate: decryption-failed', async (t) => {
  const { packed, id } = message({ encryptTo: otherCert });
  await expectRefusal(t, packed.body, { ...packed.headers, 'Message-ID': id }, 'decryption-failed');
  const { protocols } = await statusOf(id);
  t.equal(protocols.as2.mic, null, 'no MIC for a message that could not be opened');
  t.equal(protocols.as2.mic_algorithm, null);
  t.notOk('signed' in protocols.as2, 'nor what protected it');
});

t.test('unsigned when the profile signs: insufficient-message-security', async (t) => {
  const { packed, id } = message({ sign: false });
  await expectRefusal(
    t,
    packed.body,
    { ...packed.headers, 'Message-ID': id },
    'insufficient-message-security',
  );
});

t.test('unknown AS2-To and AS2-From: unknown-trading-partner', async (t) => {
  const { packed, id } = message();
  await expectRefusal(
    t,
    packed.body,
    { ...packed.headers, 'Message-ID': id, 'AS2-From': 'Nobody' },
    'unknown-trading-partner',
  );
  const second = message();
  await expectRefusal(
    t,
    second.packed.body,
    { ...second.packed.headers, 'Message-ID': second.id, 'AS2-To': 'Nowhere' },
    'unknown-trading-partner',
  );
});

t.test('malformed MIME: unexpected-processing-error', async (t) => {
  const { id } = message();
  await expectRefusal(
    t,
    Buffer.from('not mime at all'),
    { 'Content-Type': 'multipart/signed; boundary=', 'Message-ID': id },
    'unexpected-processing-error',
  );
  const cut = message();
  await expectRefusal(
    t,
    cut.packed.body.subarray(0, 300),
    { ...cut.packed.headers, 'Message-ID': cut.id },
    'decryption-failed',
  );
});

t.test('not AS2 at all: 4xx, nothing stored, the receiver carries on', async (t) => {
  const { packed } = message();
  t.equal((await post(packed.body, { ...packed.headers })).status, 400, 'no Message-ID');
  t.equal(
    (await post(packed.body, { ...packed.headers, 'Message-ID': 'x'.repeat(5000) })).status,
    400,
    'absurd Message-ID',
  );
  const huge = await fetch(url, { method: 'POST', headers: { 'X-Big': 'y'.repeat(70_000) }, body: 'x' }).then(
    (r) => r.status,
    () => 431,
  );
  t.equal(huge, 431, 'absurd header section');
  t.equal((await fetch(url)).status, 405);
  const { packed: good, id } = message();
  const answer = await post(good.body, { ...good.headers, 'Message-ID': id });
  t.match(parseMdn(answer.body, answer.headers).fields.get('disposition'), /processed$/, 'still working');
});

t.test('as2bis partner asking for a SHA-1 signed receipt: signed with SHA-256 instead', async (t) => {
  const partners = await server.call('GET', '/api/v1/partners?limit=100');
  const sender = (partners.body.data.partners as { id: number; name: string }[]).find(
    (p) => p.name === 'spx',
  );
  const set = await server.call('PUT', `/api/v1/as2/remote-profiles/${sender!.id}`, {
    body: { as2bis: true },
  });
  t.equal(set.status, 200);
  // The receiver keeps a partner's profile for 5 s: a new AS2-From/AS2-To pair is not needed,
  // but the change must be seen, so wait it out.
  await new Promise((resolve) => setTimeout(resolve, 5200));
  const { packed, id } = message();
  const answer = await post(packed.body, {
    ...packed.headers,
    'Message-ID': id,
    'Disposition-Notification-Options': formatDispositionNotificationOptions(['sha-1']),
  });
  t.equal(answer.status, 200);
  t.match(answer.headers['content-type'], /multipart\/signed/);
  t.match(answer.headers['content-type'], /micalg="?sha-256/, 'the receipt is signed with SHA-256');
  const mdn = parseMdn(answer.body, answer.headers, { verificationCerts: [pierCert] });
  t.match(mdn.fields.get('disposition'), /processed$/);
  t.equal(mdn.mic?.algorithm, 'sha-1', 'the MIC keeps the algorithm the partner asked for');
  await server.call('PUT', `/api/v1/as2/remote-profiles/${sender!.id}`, { body: { as2bis: false } });
});
