/**
 * Certificate and key files made by the real `openssl` command, once per test file, in a
 * temporary directory: every form the certificate store must read.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';

export const password = 'Secret-pass 1';

export interface Fixtures {
  dir: string;
  /** Contents of a made file. */
  read(name: string): Buffer;
  /** Runs openssl in the fixture directory: `command` is split on spaces, `extra` appended as is. */
  openssl(command: string, ...extra: string[]): string;
  /** A fresh RSA key and self-signed certificate, `<name>.key` (PKCS#8 PEM) and `<name>.crt`. */
  selfSigned(name: string, subject: string, days?: number): void;
  /**
   * A fresh EC key on `curve` (P-256, P-384, P-521) and a self-signed certificate for 30 days,
   * subject `/O=<name>/CN=<name>.as2.example`; `extra` is appended to the openssl command.
   */
  ec(name: string, curve: string, ...extra: string[]): void;
  /** A certificate valid only between two past or future dates (`YYYYMMDDHHMMSSZ`). */
  dated(name: string, subject: string, start: string, end: string): void;
  remove(): void;
}

/** With `t`, the files are removed when the test ends. */
export function makeFixtures(t?: Pick<Test, 'teardown'>): Fixtures {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pier-certs-'));
  const openssl = (command: string, ...extra: string[]) =>
    execFileSync('openssl', [...command.split(' '), ...extra], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
  const selfSigned = (name: string, subject: string, days = 365) => {
    openssl(
      `req -x509 -newkey rsa:2048 -nodes -keyout ${name}.key -out ${name}.crt -days ${days} -subj`,
      subject,
    );
  };
  const ec = (name: string, curve: string, ...extra: string[]) => {
    openssl(
      `req -x509 -newkey ec -pkeyopt ec_paramgen_curve:${curve} -nodes -keyout ${name}.key -out ${name}.crt -days 30 -subj`,
      `/O=${name}/CN=${name}.as2.example`,
      ...extra,
    );
  };
  let caReady = false;
  const dated = (name: string, subject: string, start: string, end: string) => {
    if (!caReady) {
      mkdirSync(path.join(dir, 'ca-new'));
      writeFileSync(path.join(dir, 'ca-index.txt'), '');
      writeFileSync(path.join(dir, 'ca-serial'), '1000\n');
      writeFileSync(
        path.join(dir, 'ca.cnf'),
        [
          '[ca]',
          'default_ca = here',
          '[here]',
          `database = ${dir}/ca-index.txt`,
          `new_certs_dir = ${dir}/ca-new`,
          `serial = ${dir}/ca-serial`,
          'default_md = sha256',
          'policy = any',
          'unique_subject = no',
          '[any]',
          'commonName = supplied',
          'organizationName = optional',
          'countryName = optional',
        ].join('\n'),
      );
      caReady = true;
    }
    openssl(`req -new -newkey rsa:2048 -nodes -keyout ${name}.key -out ${name}.csr -subj`, subject);
    openssl(
      `ca -batch -config ca.cnf -selfsign -keyfile ${name}.key -in ${name}.csr -notext -out ${name}.crt`,
      ...['-startdate', start, '-enddate', end],
    );
  };
  const remove = () => rmSync(dir, { recursive: true, force: true });
  t?.teardown(remove);
  return { dir, read: (name) => readFileSync(path.join(dir, name)), openssl, selfSigned, ec, dated, remove };
}

/**
 * The standard set: an RSA certificate with its key in every encoding, PKCS#12 files (modern
 * and legacy, with and without password), an EC certificate with a SEC1 key, PKCS#7 chains,
 * a PEM bundle and an unrelated key.
 */
export function makeStandardFixtures(t?: Pick<Test, 'teardown'>): Fixtures {
  const f = makeFixtures(t);
  const o = f.openssl;
  o(
    'req -x509 -newkey rsa:2048 -nodes -keyout rsa.key -out rsa.crt -days 365',
    ...['-subj', '/C=DE/O=Acme, Inc./CN=as2.acme.example'],
    ...['-addext', 'keyUsage=critical,digitalSignature,keyEncipherment'],
    ...['-addext', 'extendedKeyUsage=emailProtection,clientAuth'],
    ...['-addext', 'subjectAltName=DNS:as2.acme.example,email:edi@acme.example,IP:127.0.0.1'],
  );
  o('x509 -in rsa.crt -outform DER -out rsa.der');
  o('rsa -in rsa.key -traditional -out rsa-pkcs1.pem');
  o('rsa -in rsa.key -traditional -outform DER -out rsa-pkcs1.der');
  o('pkcs8 -topk8 -nocrypt -in rsa.key -outform DER -out rsa-pkcs8.der');
  o('pkcs8 -topk8 -v2 aes-256-cbc -in rsa.key -out rsa-enc.pem -passout', `pass:${password}`);
  o('pkcs8 -topk8 -v2 aes-256-cbc -in rsa.key -outform DER -out rsa-enc.der -passout', `pass:${password}`);
  o(
    'pkcs12 -export -in rsa.crt -inkey rsa.key -out modern.p12 -name',
    'Acme signing',
    '-passout',
    `pass:${password}`,
  );
  o('pkcs12 -export -legacy -in rsa.crt -inkey rsa.key -out legacy.p12 -passout', `pass:${password}`);
  o('pkcs12 -export -in rsa.crt -inkey rsa.key -out nopass.p12 -passout pass:');
  o('ecparam -name prime256v1 -genkey -noout -out ec.key');
  o('ec -in ec.key -outform DER -out ec-sec1.der');
  o('req -x509 -key ec.key -out ec.crt -days 20 -subj', '/O=Globex/CN=Globex EDI');
  o('pkcs12 -export -in ec.crt -inkey ec.key -out ec.p12 -passout', `pass:${password}`);
  o('crl2pkcs7 -nocrl -certfile rsa.crt -certfile ec.crt -out chain.p7b');
  o('crl2pkcs7 -nocrl -certfile rsa.crt -certfile ec.crt -outform DER -out chain-der.p7b');
  o('genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out other.key');
  writeFileSync(path.join(f.dir, 'bundle.pem'), Buffer.concat([f.read('rsa.crt'), f.read('ec.crt')]));
  return f;
}

/**
 * In `dir`: a CA of the test's own (ca.key and ca.crt, subject `caSubject`) and issued.crt, the
 * certificate it issues for the CSR in `csrFile` with serial `serial`, as a CA answers a request.
 */
export function issueByTestCa(dir: string, csrFile: string, caSubject: string, serial: number): void {
  const openssl = (command: string, ...more: string[]) =>
    execFileSync('openssl', [...command.split(' '), ...more], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  openssl('req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 30 -subj', caSubject);
  openssl(
    `x509 -req -in ${csrFile} -CA ca.crt -CAkey ca.key -days 30 -out issued.crt -set_serial`,
    String(serial),
  );
}
