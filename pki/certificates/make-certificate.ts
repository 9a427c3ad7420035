/**
 * Key pairs, self-signed certificates (RFC 5280) and PKCS#10 certificate signing requests
 * (RFC 2986) made by pier. node:crypto makes the keys and the signatures; this file writes the
 * DER around them, because node:crypto cannot build a certificate and node-forge cannot do EC.
 * RSA keys sign with SHA-256 (PKCS#1 v1.5); EC keys with ECDSA and the hash of the curve's size
 * (P-256 with SHA-256, P-384 with SHA-384, RFC 5480 4).
 */
import { createHash, createPublicKey, generateKeyPair, randomBytes, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { extensions } from '../certificate-oids.js';
import { oids } from '../oids.js';
import {
  algorithmIdentifier,
  explicit,
  integer,
  nullValue,
  octetString,
  oid,
  raw,
  sequence,
  setOf,
  time,
  tlv,
  toBuffer,
  type Der,
} from '../asn1/writer.js';
import { readWhole } from '../asn1/tlv.js';
import { distinguishedName, type SubjectFields } from './distinguished-name.js';

const generate = promisify(generateKeyPair);

export type KeySpec =
  { algorithm: 'rsa'; bits: 2048 | 3072 | 4096 } | { algorithm: 'ec'; curve: 'P-256' | 'P-384' };

/** node:crypto's names of the curves pier offers. */
const curves = { 'P-256': 'prime256v1', 'P-384': 'secp384r1' } as const;

/** A new private key; RSA keys take a second or more, so this runs off the event loop. */
export async function makeKeyPair(spec: KeySpec): Promise<KeyObject> {
  const { privateKey } =
    spec.algorithm === 'rsa'
      ? await generate('rsa', { modulusLength: spec.bits, publicExponent: 0x10001 })
      : await generate('ec', { namedCurve: curves[spec.curve] });
  return privateKey;
}

interface SignatureChoice {
  /** node:crypto digest name. */
  digest: 'sha256' | 'sha384';
  identifier: Der;
}

function signatureChoice(key: KeyObject): SignatureChoice {
  if (key.asymmetricKeyType === 'rsa') {
    // RFC 4055 5: sha256WithRSAEncryption with NULL parameters.
    return { digest: 'sha256', identifier: algorithmIdentifier(oids.sha256WithRSAEncryption, nullValue) };
  }
  if (key.asymmetricKeyType === 'ec') {
    // RFC 5758 3.2: ecdsa-with-SHAnnn with the parameters absent.
    return key.asymmetricKeyDetails?.namedCurve === curves['P-384']
      ? { digest: 'sha384', identifier: algorithmIdentifier(oids.ecdsaWithSha384) }
      : { digest: 'sha256', identifier: algorithmIdentifier(oids.ecdsaWithSha256) };
  }
  throw new TypeError(`pier makes certificates with RSA or EC keys, not ${key.asymmetricKeyType}`);
}

/** The signed structure: the body, its algorithm and the signature as a BIT STRING. */
function signed(body: Der, key: KeyObject): Buffer {
  const choice = signatureChoice(key);
  const bytes = toBuffer(body);
  // ECDSA signatures come as DER Ecdsa-Sig-Value, the form X.509 carries (node's default).
  const signature = sign(choice.digest, bytes, key);
  return toBuffer(sequence(raw(bytes), choice.identifier, bitString(signature)));
}

function bitString(bytes: Buffer): Der {
  return tlv(0x03, [Buffer.from([0]), bytes]);
}

/** A positive INTEGER from big-endian bytes, minimal as DER requires. */
function bigInteger(bytes: Buffer): Der {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, [trimmed[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed]);
}

function extension(id: string, critical: boolean, value: Der): Der {
  return critical
    ? sequence(oid(id), tlv(0x01, [Buffer.from([0xff])]), octetString(toBuffer(value)))
    : sequence(oid(id), octetString(toBuffer(value)));
}

/** KeyUsage bits as a DER BIT STRING (named bits: trailing zero bits dropped, X.690 11.2.2). */
function keyUsage(bits: number[]): Der {
  let value = 0;
  for (const bit of bits) value |= 0x80 >> bit;
  const unused = value === 0 ? 0 : Math.min(...bits.map((b) => 7 - b));
  return tlv(0x03, [Buffer.from([unused, value])]);
}

const keyUsageBits = { digitalSignature: 0, keyEncipherment: 2, keyAgreement: 4 } as const;

/**
 * What an AS2 key does: it signs messages and receipts, and its partner encrypts to it (RSA
 * key transport, or EC key agreement). TLS clients use the same key with clientAuth.
 */
function endEntityExtensions(key: KeyObject, spki: Buffer): Der[] {
  const usage =
    key.asymmetricKeyType === 'rsa'
      ? [keyUsageBits.digitalSignature, keyUsageBits.keyEncipherment]
      : [keyUsageBits.digitalSignature, keyUsageBits.keyAgreement];
  return [
    extension(extensions.basicConstraints, true, sequence()),
    extension(extensions.keyUsage, true, keyUsage(usage)),
    extension(
      extensions.extendedKeyUsage,
      false,
      sequence(oid('1.3.6.1.5.5.7.3.4'), oid('1.3.6.1.5.5.7.3.2')),
    ),
    extension(oids.subjectKeyIdentifier, false, octetString(subjectKeyIdentifier(spki))),
  ];
}

/** RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING (unused-bits octet left out). */
function subjectKeyIdentifier(spki: Buffer): Buffer {
  const keyBits = readWhole(spki).child(1, 'subjectPublicKey');
  return createHash('sha1').update(keyBits.content.subarray(1)).digest();
}

export interface CertificateRequestInput {
  key: KeyObject;
  subject: SubjectFields;
}

export interface SelfSignedInput extends CertificateRequestInput {
  /** Start of validity; the certificate is valid from this moment. */
  notBefore: Date;
  validDays: number;
}

const dayMs = 24 * 60 * 60 * 1000;

function publicKeyInfo(key: KeyObject): Buffer {
  return createPublicKey(key).export({ format: 'der', type: 'spki' });
}

/**
 * A self-signed X.509 v3 certificate (DER). The serial number is 16 random octets, positive
 * (RFC 5280 4.1.2.2: at most 20 octets, unique per issuer; random is how CAs make them unique).
 */
export function selfSignedCertificate(input: SelfSignedInput): Buffer {
  const spki = publicKeyInfo(input.key);
  const name = distinguishedName(input.subject);
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f || 0x01;
  // Whole seconds: X.509 times carry no fractions, and the record shows what the DER says.
  const start = new Date(Math.floor(input.notBefore.getTime() / 1000) * 1000);
  const end = new Date(start.getTime() + input.validDays * dayMs);
  const tbs = sequence(
    explicit(0, integer(2)), // v3
    bigInteger(serial),
    signatureChoice(input.key).identifier,
    name,
    sequence(time(start), time(end)),
    name,
    raw(spki),
    explicit(3, sequence(...endEntityExtensions(input.key, spki))),
  );
  return signed(tbs, input.key);
}

/**
 * A PKCS#10 certificate signing request (DER) signed with the key it asks a certificate for.
 * It asks for the same extensions a self-signed certificate gets (extensionRequest, RFC 2985
 * 5.4.2), so a CA that copies requested extensions issues a certificate fit for AS2.
 */
export function certificateRequest(input: CertificateRequestInput): Buffer {
  const spki = publicKeyInfo(input.key);
  const requested = sequence(...endEntityExtensions(input.key, spki));
  const attributes = tlv(0xa0, [sequence(oid(extensionRequestOid), setOf([requested]))]);
  const info = sequence(integer(0), distinguishedName(input.subject), raw(spki), attributes);
  return signed(info, input.key);
}

/** PKCS#9 extensionRequest. */
const extensionRequestOid = '1.2.840.113549.1.9.14';
