/**
 * BouncyCastle as an independent ECMQV implementation: test/fixtures/ecmqv/EcmqvTool.java,
 * compiled once per test file with Debian's javac and BouncyCastle jars (.ci/run installs them).
 * Where they are missing, `bouncyCastle()` says why instead; under CI that is a failure.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ecmqvFixtures = path.resolve(import.meta.dirname, '../fixtures/ecmqv');
const jars = ['bcprov', 'bcpkix', 'bcutil'].map((name) => `/usr/share/java/${name}.jar`);

export interface BouncyCastle {
  /** Decrypts `der` with the recipient's certificate and key files; what BouncyCastle read. */
  decrypt(
    recipientCrt: string,
    recipientKey: string,
    der: Buffer,
  ): { scheme: string; wrap: string; content: Buffer };
  /** 1-pass ECMQV EnvelopedData (or AuthEnvelopedData for `-gcm`) to the recipient's certificate. */
  encrypt(
    recipientCrt: string,
    originatorKey: string,
    originatorCrt: string,
    kdf: string,
    content: string,
    data: Buffer,
  ): Buffer;
  remove(): void;
}

/** The tool, or why it cannot run here (no Java, no jars). */
export function bouncyCastle(): BouncyCastle | string {
  const missing = jars.filter((jar) => !existsSync(jar));
  if (missing.length > 0) return `BouncyCastle jars missing: ${missing.join(', ')}`;
  for (const command of ['javac', 'java'])
    if (spawnSync(command, ['-version'], { stdio: 'ignore' }).status !== 0)
      return `${command} is not installed`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pier-bouncycastle-'));
  const classpath = `${jars.join(':')}:${dir}`;
  execFileSync('javac', ['-cp', jars.join(':'), '-d', dir, path.join(ecmqvFixtures, 'EcmqvTool.java')], {
    stdio: 'pipe',
  });
  const run = (...args: string[]) =>
    execFileSync('java', ['-cp', classpath, 'EcmqvTool', ...args], { stdio: 'pipe' }).toString();
  return {
    decrypt(recipientCrt, recipientKey, der) {
      writeFileSync(path.join(dir, 'in.der'), der);
      const said = run(
        'decrypt',
        recipientCrt,
        recipientKey,
        path.join(dir, 'in.der'),
        path.join(dir, 'out'),
      );
      const [, scheme, wrap] = /scheme=(\S+) wrap=(\S+)/.exec(said) ?? [];
      return { scheme: scheme ?? '', wrap: wrap ?? '', content: readFileSync(path.join(dir, 'out')) };
    },
    encrypt(recipientCrt, originatorKey, originatorCrt, kdf, content, data) {
      writeFileSync(path.join(dir, 'plain'), data);
      const out = path.join(dir, 'out.der');
      run('encrypt', recipientCrt, originatorKey, originatorCrt, kdf, content, path.join(dir, 'plain'), out);
      return readFileSync(out);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
