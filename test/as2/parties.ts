/**
 * Trading parties for AS2 tests: RSA keys and self-signed certificates made by the real
 * `openssl` once per test file, loaded as node:crypto objects the way the certificate store
 * hands them out (X509Certificate and KeyObject).
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { Test } from 'tap';
import { makeFixtures, type Fixtures } from '../helpers/certificates.js';

export interface Party {
  name: string;
  certificate: X509Certificate;
  privateKey: KeyObject;
  /** File names in the fixture directory, for openssl commands. */
  certFile: string;
  keyFile: string;
}

export interface Parties {
  fixtures: Fixtures;
  /** The sending partner. */
  alice: Party;
  /** The receiving organization. */
  bob: Party;
  /** Someone neither trusts. */
  mallory: Party;
  remove(): void;
}

/** With `t`, the files are removed when the test ends. */
export function makeParties(t?: Pick<Test, 'teardown'>): Parties {
  const fixtures = makeFixtures(t);
  const party = (name: string): Party => {
    fixtures.openssl(
      `req -x509 -newkey rsa:2048 -nodes -keyout ${name}.key -out ${name}.crt -days 30 -subj`,
      `/O=${name}/CN=${name}.as2.example`,
      ...['-addext', 'keyUsage=critical,digitalSignature,keyEncipherment'],
    );
    return {
      name,
      certificate: new X509Certificate(fixtures.read(`${name}.crt`)),
      privateKey: createPrivateKey(fixtures.read(`${name}.key`)),
      certFile: `${name}.crt`,
      keyFile: `${name}.key`,
    };
  };
  return {
    fixtures,
    alice: party('alice'),
    bob: party('bob'),
    mallory: party('mallory'),
    remove: () => fixtures.remove(),
  };
}
