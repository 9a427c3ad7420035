/**
 * Writing a PKCS#12 file (RFC 7292) of one key and its certificate, in the modern form OpenSSL 3
 * writes by default: the key in a shrouded key bag (PKCS#8 encrypted with PBES2, PBKDF2 with
 * HMAC-SHA-256 and AES-256-CBC), the certificate in a plain certificate bag (it is public), and
 * the whole file's integrity as an HMAC-SHA-256 with the PKCS#12 key derivation. Both bags carry
 * the same localKeyId, so readers pair them, and the certificate's friendly name.
 */
import { createHash, createHmac, randomBytes, type KeyObject } from 'node:crypto';
import {
  explicit,
  integer,
  nullValue,
  octetString,
  oid,
  raw,
  sequence,
  setOf,
  tlv,
  toBuffer,
  type Der,
} from '../asn1/writer.js';
import { cms, pkcs12 as bags } from '../certificate-oids.js';
import { oids } from '../oids.js';
import { pkcs12Kdf } from './password-based.js';

/** OpenSSL 3's default count for both the key's PBKDF2 and the MAC. */
const iterations = 2048;

export interface Pkcs12Input {
  key: KeyObject;
  /** The certificate's DER. */
  certificate: Buffer;
  /** Shown by the importing program (Windows, Java keytool, OpenSSL's -info) as the entry's name. */
  friendlyName: string;
  password: string;
}

function bmpString(text: string): Der {
  return tlv(0x1e, [Buffer.from(text, 'utf16le').swap16()]);
}

function attributes(friendlyName: string, localKeyId: Buffer): Der {
  return setOf([
    sequence(oid(bags.friendlyName), setOf([bmpString(friendlyName)])),
    sequence(oid(bags.localKeyId), setOf([octetString(localKeyId)])),
  ]);
}

/** ContentInfo of type data around a DER value, as AuthenticatedSafe and its members are wrapped. */
function dataContent(value: Der): Der {
  return sequence(oid(cms.data), explicit(0, octetString(toBuffer(value))));
}

export function writePkcs12(input: Pkcs12Input): Buffer {
  if (input.password.length === 0) throw new RangeError('A PKCS#12 file is written with a password');
  const localKeyId = createHash('sha1').update(input.certificate).digest();
  const bagAttributes = attributes(input.friendlyName, localKeyId);

  // EncryptedPrivateKeyInfo with PBES2 is exactly a shrouded key bag's value (RFC 7292 4.2.2).
  const shrouded = input.key.export({
    format: 'der',
    type: 'pkcs8',
    cipher: 'aes-256-cbc',
    passphrase: input.password,
  });
  const keyBag = sequence(oid(bags.shroudedKeyBag), explicit(0, raw(shrouded)), bagAttributes);
  const certBag = sequence(
    oid(bags.certBag),
    explicit(0, sequence(oid(bags.x509Certificate), explicit(0, octetString(input.certificate)))),
    bagAttributes,
  );
  const authenticatedSafe = toBuffer(sequence(dataContent(sequence(certBag)), dataContent(sequence(keyBag))));

  const salt = randomBytes(16);
  const macKey = pkcs12Kdf(input.password, salt, 3, iterations, 32, 'sha256');
  const mac = createHmac('sha256', macKey).update(authenticatedSafe).digest();
  const macData = sequence(
    sequence(sequence(oid(oids.sha256), nullValue), octetString(mac)),
    octetString(salt),
    integer(iterations),
  );
  return toBuffer(
    sequence(integer(3), sequence(oid(cms.data), explicit(0, octetString(authenticatedSafe))), macData),
  );
}
