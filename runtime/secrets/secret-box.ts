/**
 * Encryption of secrets at rest (private keys, passwords, header lists, client secrets):
 * AES-256-GCM under a key from PIER_SECRET_KEY, or from a key file generated on first start
 * under the data directory with mode 0600. Stored form: `v1:<iv>:<tag>:<ciphertext>`, base64.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

const version = 'v1';

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('The secret key must be 32 bytes');
    this.#key = key;
  }

  /** Any text (a passphrase or base64) becomes a 32-byte key by SHA-256. */
  static fromText(text: string): SecretBox {
    return new SecretBox(createHash('sha256').update(text, 'utf8').digest());
  }

  seal(plain: string | Buffer): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const data = Buffer.concat([cipher.update(plain), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [version, iv.toString('base64'), tag.toString('base64'), data.toString('base64')].join(':');
  }

  open(sealed: string): Buffer {
    const [v, iv, tag, data] = sealed.split(':');
    if (v !== version || !iv || !tag || data === undefined) throw new Error('Not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]);
    } catch {
      throw new Error('A stored secret cannot be decrypted: PIER_SECRET_KEY or the key file has changed');
    }
  }

  openText(sealed: string): string {
    return this.open(sealed).toString('utf8');
  }
}

/** The process's secret box: PIER_SECRET_KEY, else <dataDir>/secret.key (made on first use). */
export async function loadSecretBox(dataDir: string, envKey: string | undefined): Promise<SecretBox> {
  if (envKey) return SecretBox.fromText(envKey);
  const file = path.join(dataDir, 'secret.key');
  try {
    return SecretBox.fromText((await readFile(file, 'utf8')).trim());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const generated = randomBytes(32).toString('base64');
  // Written aside and linked into place, so a process starting at the same moment never reads
  // a half-written file; link fails if another process's key is already there.
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(aside, `${generated}\n`, { mode: 0o600 });
  try {
    await link(aside, file);
    return SecretBox.fromText(generated);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return SecretBox.fromText((await readFile(file, 'utf8')).trim());
  } finally {
    await unlink(aside).catch(() => {});
  }
}
