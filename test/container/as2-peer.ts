/**
 * alice, an AS2 partner played by `openssl cms`, and bob, the organization a containerized pier
 * receives for: their certificates, the configuration file that sets bob's pier up (bob's key sealed
 * with the install's secret key, as `pier config export --seal-keys` writes it), and messages
 * signed and encrypted by openssl, posted over HTTP, whose receipts openssl verifies.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createPrivateKey } from 'node:crypto';
import path from 'node:path';
import { stringify } from 'yaml';
import { SecretBox } from '../../runtime/secrets/secret-box.js';
import { makeFixtures, type Fixtures } from '../helpers/certificates.js';
import { asMessage, opensslVerifies } from '../helpers/smime.js';

export interface As2Setup {
  fixtures: Fixtures;
  /** The configuration file's text (YAML). */
  config: string;
}

/** Where the file-writer writes inside the container: under the data directory, in the volume. */
export const documentsInVolume = 'to-erp';

export function as2Setup(secretKey: string, as2Port: number): As2Setup {
  const fixtures = makeFixtures();
  fixtures.selfSigned('alice', '/CN=alice');
  fixtures.selfSigned('bob', '/CN=bob');
  const bobKey = createPrivateKey(fixtures.read('bob.key')).export({ format: 'der', type: 'pkcs8' });
  const config = {
    pier_config: 1,
    certificates: [
      {
        name: 'bob',
        pem: fixtures.read('bob.crt').toString(),
        private_key: { sealed: SecretBox.fromText(secretKey).seal(bobKey) },
      },
      { name: 'alice', pem: fixtures.read('alice.crt').toString() },
    ],
    organizations: [
      { name: 'bob', as2: { as2id: 'BOB', signing_certificate: 'bob', decryption_certificates: ['bob'] } },
    ],
    partners: [
      {
        name: 'alice',
        as2: {
          as2id: 'ALICE',
          endpoint: 'http://127.0.0.1:9/as2',
          partner_certificate: 'alice',
          signature_certificates: ['alice'],
          compression: false,
        },
      },
    ],
    instances: [
      { type: 'as2-receiver', name: 'as2-in', settings: { host: '0.0.0.0', port: as2Port, path: '/as2' } },
      {
        type: 'file-writer',
        name: 'to-erp',
        settings: { directory: `/var/lib/pier/${documentsInVolume}`, path_pattern: '{filename}' },
      },
    ],
    routes: [
      { name: 'from-alice', source_plugin: 'as2-in', from: 'alice', to: 'bob', target_plugin: 'to-erp' },
    ],
  };
  return { fixtures, config: stringify(config) };
}

export interface As2Message {
  headers: Record<string, string>;
  body: Buffer;
}

/** A document signed by alice and encrypted to bob by openssl, as alice's AS2 software posts it. */
export function as2Message(
  fixtures: Fixtures,
  messageId: string,
  fileName: string,
  document: string,
): As2Message {
  const entity = `Content-Type: application/edi-x12\r\nContent-Disposition: attachment; filename="${fileName}"\r\n\r\n${document}`;
  writeFileSync(path.join(fixtures.dir, 'entity.mime'), entity);
  fixtures.openssl(
    'cms -sign -binary -in entity.mime -signer alice.crt -inkey alice.key -md sha256 -out signed.eml',
  );
  fixtures.openssl('cms -encrypt -binary -in signed.eml -aes256 -out encrypted.eml -recip bob.crt');
  const encrypted = readFileSync(path.join(fixtures.dir, 'encrypted.eml'), 'latin1');
  return {
    headers: {
      'AS2-Version': '1.2',
      'AS2-From': 'ALICE',
      'AS2-To': 'BOB',
      'Message-ID': `<${messageId}@alice.example>`,
      'Content-Type': 'application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m',
      'Disposition-Notification-To': 'edi@alice.example',
      'Disposition-Notification-Options':
        'signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256',
    },
    body: Buffer.from(encrypted.slice(encrypted.indexOf('\n\n') + 2), 'base64'),
  };
}

export interface Answer {
  status: number;
  contentType: string;
  body: Buffer;
}

/**
 * Posts a message; `pause` is called once the first kilobyte of the body is sent, and the rest
 * follows when it resolves: a message in flight while something happens to the receiver.
 */
export function post(url: string, message: As2Message, pause?: () => Promise<void>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', headers: { ...message.headers, 'content-length': String(message.body.length) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    request.on('error', reject);
    if (!pause) {
      request.end(message.body);
      return;
    }
    request.write(message.body.subarray(0, 1024));
    pause().then(
      () => request.end(message.body.subarray(1024)),
      (error: unknown) => {
        request.destroy();
        reject(error as Error);
      },
    );
  });
}

/** The receipt's human-readable and machine-readable parts, once openssl verified bob's signature. */
export function verifiedReceipt(fixtures: Fixtures, answer: Answer): string {
  return opensslVerifies(
    fixtures,
    asMessage({ 'Content-Type': answer.contentType }, answer.body),
    answer.contentType,
    'bob.crt',
  ).toString('latin1');
}
