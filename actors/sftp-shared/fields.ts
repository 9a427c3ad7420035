/**
 * The settings every SFTP instance shares: the server, the login and the pinned host key.
 * The password and the private key are write-only (sealed at rest, never returned) and belong
 * to the host they were entered for: changing `host` needs them sent again.
 */
import { createRequire } from 'node:module';
import type ssh2 from 'ssh2';
import { z } from 'zod';
import { password, userName, wholeNumber } from '../shared/fields.js';

/** A host name or address, without scheme, port or path. */
const hostName = z
  .string()
  .min(1, 'Required')
  .max(253)
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._:-]+)$/, 'Must be a host name or address, without scheme or port');

/** A remote directory, written as the server shows it: absolute, with / separators. */
export const remotePath = z
  .string()
  .max(1024)
  .regex(/^\//, 'Must be an absolute path on the server')
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'Must not contain control characters')
  .refine((p) => !p.split('/').includes('..'), 'Must not contain .. segments');

export const sftpConnectionFields = {
  host: hostName.describe("The partner's SFTP server: host name or address"),
  port: wholeNumber(1, 65_535).describe('SSH port of the server'),
  username: userName.min(1, 'Required').describe('User name of the login'),
  host_key_fingerprint: z
    .string()
    .max(64)
    .regex(
      /^(SHA256:[A-Za-z0-9+/]{43})?$/,
      'Must be a SHA256 fingerprint as OpenSSH prints it: SHA256: and 43 base64 characters',
    )
    .describe(
      "The server's host key fingerprint (SHA256:…, as ssh-keygen -lf prints it). Empty: nothing is transferred; " +
        'the connection check and the instance state show the key the server presents, for you to confirm and pin',
    ),
  timeout_seconds: wholeNumber(1, 3600).describe('Seconds connecting and each remote operation may take'),
};

export const sftpConnectionDefaults = {
  port: 22,
  host_key_fingerprint: '',
  timeout_seconds: 30,
};

export const sftpSecretFields = {
  password: password.describe(
    'Write-only. Password of the login; may be left empty when a private key is given',
  ),
  private_key: z
    .string()
    .max(16_384)
    .describe(
      'Write-only. Private key of the login (OpenSSH or PEM text); may be left empty when a password is given',
    ),
  private_key_passphrase: password.describe('Write-only. Passphrase of the private key, when it has one'),
};

/** The server and login of an SFTP instance, as its settings give them. */
export type SftpEndpoint = z.output<z.ZodObject<typeof sftpConnectionFields>>;

export interface SftpSecrets {
  password?: string;
  private_key?: string;
  private_key_passphrase?: string;
}

/**
 * ssh2's key parser, loaded when a private key is first checked: this module is part of every
 * API process (the SFTP plugins' settings), which otherwise never loads the SSH client.
 */
const requireHere = createRequire(import.meta.url);
const parseKey: typeof ssh2.utils.parseKey = (key, passphrase) =>
  (requireHere('ssh2') as typeof ssh2).utils.parseKey(key, passphrase);

/** Why the login's credentials cannot be used; never quotes them. */
export function credentialProblems(secrets: SftpSecrets): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!secrets.password && !secrets.private_key) {
    problems.password = 'A password or a private key is required';
    return problems;
  }
  if (secrets.private_key) {
    const parsed = parseKey(secrets.private_key, secrets.private_key_passphrase);
    if (parsed instanceof Error) {
      problems[
        /passphrase|decrypt|encrypted/i.test(parsed.message) ? 'private_key_passphrase' : 'private_key'
      ] = /passphrase|decrypt|encrypted/i.test(parsed.message)
        ? 'Does not open the private key'
        : 'Is not a private key pier can read (OpenSSH or PEM: RSA, ECDSA, Ed25519)';
    } else if (!Array.isArray(parsed) && !parsed.isPrivateKey()) {
      problems.private_key = 'Is a public key; the private key is needed';
    }
  }
  return problems;
}
