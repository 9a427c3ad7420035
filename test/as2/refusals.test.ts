// Covers what unpackIncoming refuses for security reasons: tampering, wrong keys (incl. the PKCS#1 v1.5 implicit-rejection path), strangers and missing protection, each a DispositionError with the right modifier.
import t from 'tap';
import { unpackIncoming } from '../../actors/as2/unpack.js';
import { DispositionError } from '../../actors/as2/vocabulary/disposition-error.js';
import { packOutgoing } from '../../actors/as2/pack.js';
import { encryptEnveloped } from '../../pki/cms/enveloped-data.js';
import { makeParties } from './parties.js';
import { refusalKit } from './refusal.js';

const parties = makeParties();
t.teardown(() => parties.remove());
const { alice, bob, mallory } = parties;

const { payload, receive, signBy, refusal } = refusalKit(parties);

function flip(body: Buffer, at: number): Buffer {
  const copy = Buffer.from(body);
  copy[at] = copy[at]! ^ 0x01;
  return copy;
}

t.test('a tampered body fails the integrity check', async (t) => {
  for (const extra of [{}, { signedAttributes: false }, { scheme: 'rsa-pss' as const }]) {
    const packed = packOutgoing(payload, { sign: signBy(alice, extra) });
    const at = packed.body.indexOf('UNB+');
    refusal(
      t,
      `payload byte changed ${JSON.stringify(extra)}`,
      'integrity-check-failed',
      flip(packed.body, at),
      packed.headers,
    );
  }
  const packed = packOutgoing(payload, { sign: signBy(alice), filename: 'a.edi' });
  const renamed = Buffer.from(
    packed.body.toString('latin1').replace('filename="a.edi"', 'filename="b.edi"'),
    'latin1',
  );
  refusal(t, 'a signed header changed', 'integrity-check-failed', renamed, packed.headers);
  const encrypted = packOutgoing(payload, {
    sign: signBy(alice),
    encrypt: { algorithm: 'aes128-gcm', certificate: bob.certificate },
  });
  refusal(
    t,
    'a GCM ciphertext byte changed',
    'decryption-failed',
    flip(encrypted.body, encrypted.body.length - 40),
    encrypted.headers,
  );
});

t.test('a message for another key fails decryption, without revealing padding validity', async (t) => {
  for (const keyTransport of ['rsa-pkcs1', 'rsa-oaep'] as const) {
    for (const algorithm of ['aes128-cbc', '3des', 'aes256-gcm'] as const) {
      const forMallory = packOutgoing(payload, {
        sign: signBy(alice),
        encrypt: { algorithm, certificate: mallory.certificate, keyTransport },
      });
      refusal(
        t,
        `${keyTransport} ${algorithm} for mallory`,
        'decryption-failed',
        forMallory.body,
        forMallory.headers,
      );
      // Bob's certificate named but only mallory's key configured: the implicit-rejection path runs.
      const forBob = packOutgoing(payload, {
        sign: signBy(alice),
        encrypt: { algorithm, certificate: bob.certificate, keyTransport },
      });
      refusal(
        t,
        `${keyTransport} ${algorithm} with the wrong key`,
        'decryption-failed',
        forBob.body,
        forBob.headers,
        {
          ...receive,
          decryptionKeys: [{ certificate: bob.certificate, privateKey: mallory.privateKey }],
        },
      );
    }
  }
  // Many tries with a wrong PKCS#1 key: always decryption-failed, never another error.
  const forBob = packOutgoing(payload, {
    encrypt: { algorithm: 'aes128-cbc', certificate: bob.certificate },
  });
  const modifiers = new Set<string>();
  for (let i = 0; i < 50; i++) {
    try {
      unpackIncoming(forBob.body, forBob.headers, {
        ...receive,
        decryptionKeys: [{ certificate: bob.certificate, privateKey: mallory.privateKey }],
      });
      modifiers.add('accepted');
    } catch (error) {
      modifiers.add(error instanceof DispositionError ? error.modifier : 'other');
    }
  }
  t.same([...modifiers], ['decryption-failed']);
});

t.test('decrypted content without a Content-Type is refused as undecryptable', async (t) => {
  // What a wrong key gives when its garbage passes the CBC padding check (about one in 270) and
  // starts with a line break: an entity without headers, which read as text/plain was accepted.
  const enveloped = (content: string) =>
    encryptEnveloped([Buffer.from(content, 'latin1')], {
      algorithm: 'aes128-cbc',
      certificate: bob.certificate,
    });
  const headers = { 'content-type': 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"' };
  refusal(t, 'no header section', 'decryption-failed', enveloped('\r\n\x9a\x17garbage'), headers);
  refusal(
    t,
    'headers without Content-Type',
    'decryption-failed',
    enveloped('X-Noise: 1\r\n\r\nUNB+'),
    headers,
  );
  // The same entity with its Content-Type is opened: the refusal is for the missing header alone.
  const opened = unpackIncoming(
    enveloped(`Content-Type: application/edifact\r\n\r\n${payload.toString('latin1')}`),
    headers,
    receive,
  );
  t.same(opened.payload, payload, 'with a Content-Type the document is opened');
});

t.test('strangers and missing protection', async (t) => {
  const byMallory = packOutgoing(payload, { sign: signBy(mallory) });
  refusal(t, 'signed by a stranger', 'authentication-failed', byMallory.body, byMallory.headers);
  const unsigned = packOutgoing(payload, {
    encrypt: { algorithm: 'aes256-cbc', certificate: bob.certificate },
  });
  refusal(
    t,
    'unsigned when signing is required',
    'insufficient-message-security',
    unsigned.body,
    unsigned.headers,
    {
      ...receive,
      requireSigned: true,
    },
  );
  const clear = packOutgoing(payload, { sign: signBy(alice) });
  refusal(
    t,
    'unencrypted when encryption is required',
    'insufficient-message-security',
    clear.body,
    clear.headers,
    {
      ...receive,
      requireEncrypted: true,
    },
  );
  const none = packOutgoing(payload, {});
  refusal(t, 'no certificates to verify with', 'authentication-failed', clear.body, clear.headers, {
    ...receive,
    verificationCerts: [],
  });
  refusal(t, 'plain text when both are required', 'insufficient-message-security', none.body, none.headers, {
    ...receive,
    requireSigned: true,
    requireEncrypted: true,
  });
});
