/**
 * TLS for the HTTPS receiver tests: server certificates made by the real `openssl` (self-signed,
 * or issued by a root through an intermediate), and clients that trust exactly what they are given.
 */
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import type { Fixtures } from './certificates.js';

/** For 127.0.0.1 and localhost; `extendedKeyUsage` as openssl writes it (serverAuth, clientAuth, …). */
export function serverCertificate(f: Fixtures, name: string, extendedKeyUsage = 'serverAuth'): void {
  f.openssl(
    `req -x509 -newkey rsa:2048 -nodes -keyout ${name}.key -out ${name}.crt -days 30 -subj /CN=localhost`,
    ...['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    ...['-addext', `extendedKeyUsage=${extendedKeyUsage}`],
  );
}

/** `root.crt` (self-signed CA), `intermediate.crt` issued by it, `leaf.crt`/`leaf.key` issued by the intermediate. */
export function issuedChain(f: Fixtures): void {
  const write = (name: string, lines: string[]) => writeFileSync(path.join(f.dir, name), lines.join('\n'));
  write('ca.ext', ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign']);
  write('leaf.ext', [
    'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ]);
  f.openssl('req -new -newkey rsa:2048 -nodes -keyout root.key -out root.csr -subj', '/CN=Pier Test Root');
  f.openssl('x509 -req -in root.csr -signkey root.key -days 30 -extfile ca.ext -out root.crt');
  f.openssl(
    'req -new -newkey rsa:2048 -nodes -keyout intermediate.key -out intermediate.csr -subj',
    '/CN=Pier Test Issuing CA',
  );
  f.openssl(
    'x509 -req -in intermediate.csr -CA root.crt -CAkey root.key -CAcreateserial -days 30 -extfile ca.ext -out intermediate.crt',
  );
  f.openssl('req -new -newkey rsa:2048 -nodes -keyout leaf.key -out leaf.csr -subj /CN=localhost');
  f.openssl(
    'x509 -req -in leaf.csr -CA intermediate.crt -CAkey intermediate.key -CAcreateserial -days 30 -extfile leaf.ext -out leaf.crt',
  );
}

export interface Handshake {
  authorized: boolean;
  authorizationError: string | null;
  protocol: string | null;
  /** What the server sent, its issuers linked through issuerCertificate. */
  peer: tls.DetailedPeerCertificate;
}

/** A TLS handshake with 127.0.0.1:port that trusts only `ca` (and never gives up on an untrusted peer). */
export function handshake(port: number, ca?: Buffer | string): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, rejectUnauthorized: false });
    socket.once('secureConnect', () => {
      const answer: Handshake = {
        authorized: socket.authorized,
        authorizationError: socket.authorizationError ? String(socket.authorizationError) : null,
        protocol: socket.getProtocol(),
        peer: socket.getPeerCertificate(true),
      };
      socket.end();
      resolve(answer);
    });
    socket.once('error', reject);
  });
}

export interface TlsAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** POST over HTTPS trusting only `ca`, verifying the server as any careful partner would. */
export function postOverTls(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  ca: Buffer,
): Promise<TlsAnswer> {
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method: 'POST', headers, ca, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('error', reject);
      response.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [k, v] of Object.entries(response.headers)) if (typeof v === 'string') flat[k] = v;
        resolve({ status: response.statusCode ?? 0, headers: flat, body: Buffer.concat(chunks) });
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}
