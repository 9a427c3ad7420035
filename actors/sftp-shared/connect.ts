/**
 * Opening an SFTP session to a partner's server, one step at a time so a failure names its
 * step: the host name resolves, a TCP connection opens, the server's host key is the pinned
 * one, the login is accepted, the SFTP subsystem starts. The host key is judged before any
 * credential is sent: an unpinned or changed key ends the attempt there, so a password never
 * reaches a server nobody confirmed.
 */
import { lookup } from 'node:dns/promises';
import net from 'node:net';
import ssh2, { type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { fingerprintOf } from './fingerprint.js';
import type { SftpEndpoint, SftpSecrets } from './fields.js';
import { limits } from '../../limits/limits.js';

export const connectSteps = ['resolve', 'connect', 'host_key', 'authenticate', 'sftp'] as const;
export type ConnectStep = (typeof connectSteps)[number];

/** Why a session could not be opened; `step` names where, `presented` the server's key when it was seen. */
export class SftpConnectError extends Error {
  constructor(
    readonly step: ConnectStep,
    message: string,
    readonly presented?: string,
    /** The key presented differs from the pinned one (not merely unpinned). */
    readonly hostKeyChanged = false,
  ) {
    super(message);
    this.name = 'SftpConnectError';
  }
}

export interface SftpSession {
  sftp: SFTPWrapper;
  /** The host key fingerprint the server presented (SHA256:…). */
  fingerprint: string;
  /** Each step's detail, for the connection check. */
  details: Partial<Record<ConnectStep, string>>;
  /** True while the connection is up. */
  readonly open: boolean;
  close(): void;
}

const where = (e: SftpEndpoint) => `${e.host} port ${e.port}`;

/** Keeps an error's own words and code, never a credential: ssh2's messages carry none. */
const words = (error: unknown) => {
  const e = error as NodeJS.ErrnoException;
  return e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : (e.message ?? String(error));
};

export async function openSession(endpoint: SftpEndpoint, secrets: SftpSecrets): Promise<SftpSession> {
  const details: SftpSession['details'] = {};
  const timeoutMs = endpoint.timeout_seconds * 1000;
  let address: string;
  try {
    const found = await lookup(endpoint.host.replace(/^\[|\]$/g, ''), { all: true });
    address = found[0]!.address;
    details.resolve = `${endpoint.host} is ${found.map((a) => a.address).join(', ')}`;
  } catch (error) {
    throw new SftpConnectError('resolve', `${endpoint.host} does not resolve (${words(error)})`);
  }
  const socket = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect({ host: address, port: endpoint.port });
    const timer = setTimeout(() => {
      s.destroy();
      reject(
        new SftpConnectError(
          'connect',
          `No connection to ${where(endpoint)} within ${endpoint.timeout_seconds} s`,
        ),
      );
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(timer);
      resolve(s);
    });
    s.once('error', (error) => {
      clearTimeout(timer);
      reject(new SftpConnectError('connect', `${where(endpoint)}: ${words(error)}`));
    });
  });
  details.connect = `Connected to ${address} port ${endpoint.port}`;

  const client = new ssh2.Client();
  let presented: string | undefined;
  let keyProblem: SftpConnectError | undefined;
  let open = false;
  const config: ConnectConfig = {
    sock: socket,
    username: endpoint.username,
    readyTimeout: timeoutMs,
    keepaliveInterval: limits.sftpKeepaliveSeconds * 1000,
    keepaliveCountMax: 3,
    hostVerifier: (key: Buffer) => {
      presented = fingerprintOf(key);
      const pinned = endpoint.host_key_fingerprint;
      if (pinned === '') {
        keyProblem = new SftpConnectError(
          'host_key',
          `The host key of ${where(endpoint)} is not pinned. The server presents ${presented}: ` +
            'confirm it with the partner, then pin it (host_key_fingerprint)',
          presented,
        );
        return false;
      }
      if (pinned !== presented) {
        keyProblem = new SftpConnectError(
          'host_key',
          `The host key of ${where(endpoint)} changed: the server presents ${presented}, ` +
            `pinned is ${pinned}. Refused; pin the new key only once the partner confirms it`,
          presented,
          true,
        );
        return false;
      }
      details.host_key = `${presented} as pinned`;
      return true;
    },
  };
  if (secrets.private_key) {
    config.privateKey = secrets.private_key;
    if (secrets.private_key_passphrase) config.passphrase = secrets.private_key_passphrase;
  }
  if (secrets.password) config.password = secrets.password;

  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error & { level?: string }) => {
      client.end();
      socket.destroy();
      if (keyProblem) return reject(keyProblem);
      if (presented === undefined)
        return reject(
          new SftpConnectError(
            'host_key',
            `The SSH handshake with ${where(endpoint)} failed: ${words(error)}`,
          ),
        );
      if (error.level === 'client-authentication')
        return reject(
          new SftpConnectError(
            'authenticate',
            `${where(endpoint)} refused the login of ${endpoint.username} (${authMethods(secrets)})`,
            presented,
          ),
        );
      reject(new SftpConnectError('authenticate', `${where(endpoint)}: ${words(error)}`, presented));
    };
    client.once('ready', () => {
      client.off('error', fail);
      resolve();
    });
    client.once('error', fail);
    client.connect(config);
  });
  details.authenticate = `Logged in as ${endpoint.username} (${authMethods(secrets)})`;
  open = true;
  client.on('error', () => {
    open = false;
  });
  client.on('close', () => {
    open = false;
  });

  // Bounded like every other step: a server that never answers the channel would otherwise hold
  // every transfer waiting on this session.
  const sftp = await new Promise<SFTPWrapper>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.end();
      reject(
        new SftpConnectError(
          'sftp',
          `The server did not start SFTP within ${endpoint.timeout_seconds} s`,
          presented,
        ),
      );
    }, timeoutMs);
    client.sftp((error, wrapper) => {
      clearTimeout(timer);
      if (error) {
        client.end();
        reject(new SftpConnectError('sftp', `The server did not start SFTP: ${words(error)}`, presented));
      } else resolve(wrapper);
    });
  });
  details.sftp = 'SFTP subsystem started';
  return {
    sftp,
    fingerprint: presented!,
    details,
    get open() {
      return open;
    },
    close() {
      open = false;
      client.end();
    },
  };
}

/**
 * The host key fingerprint the server presents, read without logging in: the connection ends
 * at the key, as it does for every unpinned key, so no credential is sent.
 */
export async function readHostKey(endpoint: SftpEndpoint): Promise<string> {
  try {
    const session = await openSession({ ...endpoint, host_key_fingerprint: '' }, {});
    session.close();
  } catch (error) {
    if (error instanceof SftpConnectError && error.presented) return error.presented;
    throw error;
  }
  throw new SftpConnectError('host_key', 'The server was accepted without a pinned key');
}

function authMethods(secrets: SftpSecrets): string {
  const methods = [secrets.private_key ? 'private key' : '', secrets.password ? 'password' : ''].filter(
    Boolean,
  );
  return methods.length > 0 ? methods.join(' and ') : 'no credential configured';
}
