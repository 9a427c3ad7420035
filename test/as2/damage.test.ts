// Covers what unpackIncoming refuses as damaged: malformed MIME, truncated CMS, absurd headers, nested layers, bombs and random damage — a DispositionError with the right modifier, never another exception.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { unpackIncoming } from '../../actors/as2/unpack.js';
import { DispositionError } from '../../actors/as2/vocabulary/disposition-error.js';
import { packOutgoing } from '../../actors/as2/pack.js';
import type { ErrorModifier } from '../../actors/as2/vocabulary/dispositions.js';
import { makeParties } from './parties.js';
import { refusalKit } from './refusal.js';

const parties = makeParties();
t.teardown(() => parties.remove());
const { alice, bob } = parties;

const { payload, receive, signBy, refusal } = refusalKit(parties);

t.test('malformed MIME', async (t) => {
  const signed = packOutgoing(payload, { sign: signBy(alice) });
  const boundary = /boundary="([^"]+)"/.exec(signed.contentType)![1]!;
  const cases: [string, ErrorModifier, Buffer, Record<string, string>][] = [
    [
      'multipart/signed without a boundary',
      'unexpected-processing-error',
      signed.body,
      { 'content-type': 'multipart/signed' },
    ],
    [
      'truncated before the close delimiter',
      'unexpected-processing-error',
      signed.body.subarray(0, signed.body.length - 60),
      signed.headers,
    ],
    ['no parts', 'unexpected-processing-error', Buffer.from(`--${boundary}--\r\n`), signed.headers],
    [
      'signature part missing',
      'unexpected-processing-error',
      Buffer.from(`--${boundary}\r\n\r\nx\r\n--${boundary}--\r\n`),
      signed.headers,
    ],
    [
      'signature part not CMS',
      'integrity-check-failed',
      Buffer.from(
        `--${boundary}\r\n\r\nx\r\n--${boundary}\r\nContent-Type: application/pkcs7-signature\r\n\r\nnot base64!\r\n--${boundary}--\r\n`,
      ),
      signed.headers,
    ],
    [
      'unknown transfer encoding',
      'unexpected-processing-error',
      Buffer.from('x'),
      { 'content-type': 'text/plain', 'content-transfer-encoding': 'x-rot13' },
    ],
    [
      'unreadable Content-Type',
      'unexpected-processing-error',
      Buffer.from('x'),
      { 'content-type': `a/b; ${'p=1; '.repeat(100)}` },
    ],
  ];
  for (const [label, modifier, body, headers] of cases) refusal(t, label, modifier, body, headers);
  // Encrypted content that is not a MIME entity.
  const { encryptEnveloped } = await import('../../pki/cms/enveloped-data.js');
  const garbage = encryptEnveloped(
    [Buffer.from('no header section here, just a line without a colon\r\n\r\n')],
    {
      algorithm: 'aes128-cbc',
      certificate: bob.certificate,
    },
  );
  refusal(t, 'decrypted content not MIME', 'decryption-failed', garbage, {
    'content-type': 'application/pkcs7-mime; smime-type=enveloped-data',
  });
});

t.test('truncated CMS', async (t) => {
  const encrypted = packOutgoing(payload, {
    sign: signBy(alice),
    encrypt: { algorithm: 'aes256-cbc', certificate: bob.certificate },
  });
  for (const keep of [0, 1, 10, 300, encrypted.body.length - 1]) {
    refusal(
      t,
      `enveloped data cut to ${keep} bytes`,
      'decryption-failed',
      encrypted.body.subarray(0, keep),
      encrypted.headers,
    );
  }
  const compressed = packOutgoing(payload, { compress: 'before-sign' });
  for (const keep of [5, 30, compressed.body.length - 3]) {
    refusal(
      t,
      `compressed data cut to ${keep} bytes`,
      'decompression-failed',
      compressed.body.subarray(0, keep),
      compressed.headers,
    );
  }
  const signed = packOutgoing(payload, { sign: signBy(alice) });
  const text = signed.body.toString('latin1');
  const sigStart = text.indexOf('\r\n\r\n', text.indexOf('application/pkcs7-signature')) + 4;
  const cut = Buffer.from(text.slice(0, sigStart + 200) + text.slice(text.lastIndexOf('\r\n--')), 'latin1');
  refusal(t, 'signature cut short', 'integrity-check-failed', cut, signed.headers);
});

t.test('absurd headers and bombs', async (t) => {
  const many: Record<string, string> = { 'content-type': 'text/plain' };
  for (let i = 0; i < 10_000; i++) many[`x-${i}`] = 'y';
  refusal(t, '10,000 header fields', 'unexpected-processing-error', payload, many);
  const { encryptEnveloped } = await import('../../pki/cms/enveloped-data.js');
  const hugeHeader = encryptEnveloped([Buffer.from(`X-Long: ${'a'.repeat(100_000)}\r\n\r\nbody`)], {
    algorithm: 'aes128-cbc',
    certificate: bob.certificate,
  });
  refusal(t, 'a 100 kB header line inside', 'decryption-failed', hugeHeader, {
    'content-type': 'application/pkcs7-mime',
  });

  // Compression nested eight deep.
  const { compress } = await import('../../pki/cms/compressed-data.js');
  let nested = Buffer.from('Content-Type: text/plain\r\n\r\nhi');
  for (let i = 0; i < 8; i++) {
    nested = Buffer.concat([
      Buffer.from('Content-Type: application/pkcs7-mime; smime-type=compressed-data\r\n\r\n'),
      compress([nested]),
    ]);
  }
  const outer = nested.subarray(nested.indexOf('\r\n\r\n') + 4);
  refusal(t, 'eight nested layers', 'unexpected-processing-error', outer, {
    'content-type': 'application/pkcs7-mime; smime-type=compressed-data',
  });

  const bomb = packOutgoing(Buffer.alloc(5 * 1024 * 1024), { compress: 'before-sign' });
  t.ok(bomb.body.length < 10_000, 'five MiB of zeros compress to a few kB');
  refusal(t, 'a decompression bomb', 'decompression-failed', bomb.body, bomb.headers, {
    ...receive,
    maxPayloadBytes: 1024 * 1024,
  });

  // 5,000 nested SEQUENCEs where the CMS should be.
  const deep = Buffer.concat([
    Buffer.alloc(10_000).map((_, i) => (i % 2 ? 0x80 : 0x30)),
    Buffer.alloc(10_000),
  ]);
  refusal(t, 'deeply nested ASN.1', 'decryption-failed', deep, {
    'content-type': 'application/pkcs7-mime; smime-type=enveloped-data',
  });
});

t.test('random damage never escapes as anything but a DispositionError', async (t) => {
  const packed = packOutgoing(randomBytes(3000), {
    filename: 'x.bin',
    compress: 'after-sign',
    sign: signBy(alice),
    encrypt: { algorithm: 'aes128-cbc', certificate: bob.certificate },
  });
  const signedOnly = packOutgoing(payload, { sign: signBy(alice), compress: 'before-sign' });
  let others = 0;
  let accepted = 0;
  for (let i = 0; i < 400; i++) {
    const source = i % 2 ? packed : signedOnly;
    const body = Buffer.from(source.body);
    const mode = i % 4;
    let damaged: Buffer;
    if (mode < 2) {
      for (let n = 0; n < 1 + (i % 5); n++)
        body[Math.floor(Math.random() * body.length)] = Math.floor(Math.random() * 256);
      damaged = body;
    } else if (mode === 2) damaged = body.subarray(0, Math.floor(Math.random() * body.length));
    else
      damaged = Buffer.concat([body.subarray(0, Math.floor(Math.random() * body.length)), randomBytes(50)]);
    try {
      unpackIncoming(damaged, source.headers, receive);
      accepted++;
    } catch (error) {
      if (!(error instanceof DispositionError)) others++;
    }
  }
  t.equal(others, 0, 'no other exception');
  t.ok(
    accepted < 40,
    `damage was nearly always noticed (${accepted} of 400 accepted, e.g. in the preamble or padding)`,
  );
});
