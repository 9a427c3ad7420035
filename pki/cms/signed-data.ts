/**
 * Detached CMS SignedData (RFC 5652 §5), the signature of multipart/signed (RFC 8551 §3.5):
 * signing with or without signed attributes and the CMSAlgorithmProtection attribute
 * (RFC 6211), and verification against the partner's certificates over the exact bytes given.
 */
import { createHash, X509Certificate, type KeyObject } from 'node:crypto';
import { CmsError } from './cms-error.js';
import type { SignatureScheme } from '../algorithms/encryption-algorithms.js';
import {
  micAlgorithms,
  micAlgorithmForDigestOid,
  micAlgorithmForPkcs1SignatureOid,
  type MicAlgorithm,
} from '../algorithms/mic-algorithms.js';
import { oids } from '../oids.js';
import { Asn1Error, readOctets, readOid, type Asn1Node } from '../asn1/reader.js';
import {
  algorithmIdentifier,
  explicit,
  implicit,
  integer,
  octetString,
  oid,
  raw,
  sequence,
  setOf,
  time,
  toBuffer,
  type Der,
} from '../asn1/writer.js';
import { identifies, issuerAndSerialNumber } from './certificates.js';
import { readContentInfo } from './content-info.js';
import {
  lenientPss,
  readSignatureAlgorithm,
  signatureSchemeFor,
  signData,
  signDigestPkcs1,
  signatureAlgorithmIdentifier,
  verifyData,
  verifyDigestPkcs1,
  type SignatureAlgorithm,
} from './rsa-signature.js';

export interface SignOptions {
  digest: MicAlgorithm;
  /** Default `rsa-pkcs1`. */
  scheme?: SignatureScheme;
  certificate: X509Certificate;
  privateKey: KeyObject;
  /** Default true. IBM Sterling and some older gateways want a signature without them. */
  signedAttributes?: boolean;
  /** RFC 6211 attribute; default true. Ignored without signed attributes. */
  algorithmProtection?: boolean;
  /** The signing-time attribute; default now. */
  signingTime?: Date;
}

export function digestOf(content: readonly Buffer[], algorithm: MicAlgorithm): Buffer {
  const hash = createHash(micAlgorithms[algorithm].nodeHash);
  for (const chunk of content) hash.update(chunk);
  return hash.digest();
}

function attribute(type: string, value: Der): Der {
  return sequence(oid(type), setOf([value]));
}

/**
 * A DER ContentInfo with detached SignedData; `contentDigest` is reused as the MIC.
 * `contentSignature` is the RSASSA-PSS signature of the content without signed attributes when
 * the content was streamed past a signer elsewhere (then `content` is not read).
 */
export function signDetached(
  content: readonly Buffer[],
  options: SignOptions,
  contentDigest: Buffer = digestOf(content, options.digest),
  contentSignature?: Buffer,
): Buffer {
  const scheme = signatureSchemeFor(options.privateKey, options.scheme);
  const digestId = algorithmIdentifier(micAlgorithms[options.digest].digestOid);
  const signatureId = signatureAlgorithmIdentifier(scheme, options.digest);
  let signedAttributes: Der | null = null;
  let signature: Buffer;
  if (options.signedAttributes ?? true) {
    const attributes = [
      attribute(oids.contentType, oid(oids.data)),
      attribute(oids.signingTime, time(options.signingTime ?? new Date())),
      attribute(oids.messageDigest, octetString(contentDigest)),
    ];
    if (options.algorithmProtection ?? true) {
      attributes.push(attribute(oids.cmsAlgorithmProtection, sequence(digestId, implicit(1, signatureId))));
    }
    const set = setOf(attributes);
    signature = signData([toBuffer(set)], options.digest, scheme, options.privateKey);
    signedAttributes = implicit(0, set);
  } else if (scheme === 'rsa-pkcs1') {
    signature = signDigestPkcs1(options.digest, contentDigest, options.privateKey);
  } else {
    signature = contentSignature ?? signData(content, options.digest, scheme, options.privateKey);
  }
  const signerInfo = sequence(
    integer(1),
    issuerAndSerialNumber(options.certificate),
    digestId,
    ...(signedAttributes ? [signedAttributes] : []),
    signatureId,
    octetString(signature),
  );
  const signedData = sequence(
    integer(1),
    setOf([digestId]),
    sequence(oid(oids.data)),
    implicit(0, setOf([raw(options.certificate.raw)])),
    setOf([signerInfo]),
  );
  return toBuffer(sequence(oid(oids.signedData), explicit(0, signedData)));
}

export interface VerifiedSignature {
  signer: X509Certificate;
  digestAlgorithm: MicAlgorithm;
  /** As it verified: for RSASSA-PSS without parameters, possibly the liberal reading. */
  signatureAlgorithm: SignatureAlgorithm;
  /**
   * RSASSA-PSS parameters were absent and the signature verified only with the SignerInfo's
   * digest for hash and MGF1 and the salt length read from the signature (in
   * `signatureAlgorithm.pss.saltLength`), not with RFC 4055's SHA-1 defaults.
   */
  lenientPss: boolean;
  /** Digest of the content with `digestAlgorithm`: the MIC when the partner asked for that algorithm. */
  contentDigest: Buffer;
  signedAttributes: boolean;
  algorithmProtection: boolean;
}

interface SignerInfo {
  sid: Asn1Node;
  digestAlgorithmOid: string;
  digestAlgorithm: MicAlgorithm;
  signedAttrs: Asn1Node | null;
  signatureAlgorithmNode: Asn1Node;
  signatureAlgorithm: SignatureAlgorithm;
  signature: Buffer;
}

function readSignedData(der: Buffer): { signedData: Asn1Node; signerInfos: SignerInfo[] } {
  const info = readContentInfo(der);
  if (info.type !== oids.signedData) throw new Asn1Error(`not SignedData but ${info.type}`);
  const signedData = info.content;
  const last = signedData.children[signedData.children.length - 1];
  if (!last || signedData.children.length < 4) throw new Asn1Error('SignedData is incomplete');
  const signerInfos = last.children.map((si): SignerInfo => {
    const signedAttrs = si.child(3, 'signedAttrs or signatureAlgorithm').isContext(0)
      ? si.child(3, 'signedAttrs')
      : null;
    const at = signedAttrs ? 4 : 3;
    const digestAlgorithmOid = readOid(si.child(2, 'digestAlgorithm').child(0, 'algorithm'));
    const digestAlgorithm =
      micAlgorithmForDigestOid(digestAlgorithmOid) ?? micAlgorithmForPkcs1SignatureOid(digestAlgorithmOid);
    if (!digestAlgorithm) throw new Asn1Error(`unsupported digest algorithm ${digestAlgorithmOid}`);
    const signatureAlgorithmNode = si.child(at, 'signatureAlgorithm');
    return {
      sid: si.child(1, 'sid'),
      digestAlgorithmOid,
      digestAlgorithm,
      signedAttrs,
      signatureAlgorithmNode,
      signatureAlgorithm: readSignatureAlgorithm(signatureAlgorithmNode),
      signature: readOctets(si.child(at + 1, 'signature')),
    };
  });
  if (signerInfos.length === 0) throw new Asn1Error('SignedData without a signer');
  return { signedData, signerInfos };
}

/** The certificates a SignedData carries (not trusted by themselves: for tests and display). */
export function certificatesInSignature(der: Buffer): X509Certificate[] {
  const { signedData } = readSignedData(der);
  const set = signedData.children.find((c) => c.isContext(0));
  return (set?.children ?? []).filter((c) => c.isUniversal(16)).map((c) => new X509Certificate(c.raw));
}

function attributes(signedAttrs: Asn1Node): Map<string, Asn1Node> {
  const out = new Map<string, Asn1Node>();
  for (const a of signedAttrs.children) {
    const type = readOid(a.child(0, 'attrType'));
    if (out.has(type)) throw new Asn1Error(`signed attribute ${type} appears twice`);
    out.set(type, a.child(1, 'attrValues').child(0, 'attribute value'));
  }
  return out;
}

/** RFC 6211 §4: the protected algorithms must be the ones the SignerInfo names. */
function checkAlgorithmProtection(protection: Asn1Node, signer: SignerInfo): void {
  const digestOid = readOid(protection.child(0, 'digestAlgorithm').child(0, 'algorithm'));
  const signatureField = protection.children.find((c) => c.isContext(1));
  const sameSignature =
    signatureField && signatureField.content.equals(signer.signatureAlgorithmNode.content);
  if (digestOid !== signer.digestAlgorithmOid || !sameSignature) {
    throw new CmsError(
      'integrity-check-failed',
      'CMSAlgorithmProtection does not match the signer’s algorithms',
    );
  }
}

/**
 * Verifies a detached signature over `content` (the exact bytes of the signed entity). Throws a
 * CmsError: authentication-failed when no given certificate made the signature,
 * integrity-check-failed when the content or attributes do not match it.
 */
export function verifyDetached(
  signatureDer: Buffer,
  content: readonly Buffer[],
  certificates: readonly X509Certificate[],
): VerifiedSignature {
  let parsed: ReturnType<typeof readSignedData>;
  try {
    parsed = readSignedData(signatureDer);
  } catch (error) {
    throw new CmsError('integrity-check-failed', `unreadable signature: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const digests = new Map<MicAlgorithm, Buffer>();
  // A certificate the identifier names whose signature fails means altered content or
  // attributes (integrity); no named certificate and no other that verifies means a stranger.
  let integrityFailure = false;
  for (const signer of parsed.signerInfos) {
    const contentDigest = digests.get(signer.digestAlgorithm) ?? digestOf(content, signer.digestAlgorithm);
    digests.set(signer.digestAlgorithm, contentDigest);
    const named = certificates.filter((c) => safeIdentifies(signer.sid, c));
    // A certificate the identifier does not name may still hold the key (a reissued certificate).
    const candidates = named.length > 0 ? named : certificates;
    for (const certificate of candidates) {
      const key = certificate.publicKey;
      if (!signer.signedAttrs) {
        const reading =
          signer.signatureAlgorithm.scheme !== 'rsa-pkcs1'
            ? verifyingReading(content, signer, key)
            : verifyDigestPkcs1(signer.digestAlgorithm, contentDigest, signer.signature, key)
              ? signer.signatureAlgorithm
              : null;
        if (reading) return result(certificate, signer, reading, contentDigest, false);
        if (named.length > 0) integrityFailure = true;
        continue;
      }
      const signedBytes = Buffer.from(signer.signedAttrs.raw);
      signedBytes[0] = 0x31; // signed as a SET OF (RFC 5652 §5.4)
      const reading = verifyingReading([signedBytes], signer, key);
      if (!reading) {
        if (named.length > 0) integrityFailure = true;
        continue;
      }
      const attrs = attributes(signer.signedAttrs);
      const messageDigest = attrs.get(oids.messageDigest);
      if (!messageDigest || !readOctets(messageDigest).equals(contentDigest)) {
        integrityFailure = true;
        continue;
      }
      const contentType = attrs.get(oids.contentType);
      if (contentType && readOid(contentType) !== oids.data) {
        throw new CmsError('integrity-check-failed', 'signed content type is not data');
      }
      const protection = attrs.get(oids.cmsAlgorithmProtection);
      if (protection) checkAlgorithmProtection(protection, signer);
      return result(certificate, signer, reading, contentDigest, protection !== undefined);
    }
  }
  if (integrityFailure) {
    throw new CmsError('integrity-check-failed', 'the signature does not match the content');
  }
  throw new CmsError('authentication-failed', 'signed by a certificate that is not among the partner’s');
}

function safeIdentifies(sid: Asn1Node, certificate: X509Certificate): boolean {
  try {
    return identifies(sid, certificate);
  } catch {
    return false;
  }
}

/**
 * The reading of the signer's signature algorithm under which `data` verifies, or null: the
 * algorithm as written, then for RSASSA-PSS without parameters the liberal one (`lenientPss`).
 * A signature that verifies under neither is refused.
 */
function verifyingReading(
  data: readonly Buffer[],
  signer: SignerInfo,
  key: KeyObject,
): SignatureAlgorithm | null {
  const written = signer.signatureAlgorithm;
  if (verifyData(data, signer.digestAlgorithm, written, signer.signature, key)) return written;
  const lenient = lenientPss(written, signer.digestAlgorithm, signer.signature, key);
  if (lenient && verifyData(data, signer.digestAlgorithm, lenient, signer.signature, key)) return lenient;
  return null;
}

function result(
  signer: X509Certificate,
  info: SignerInfo,
  reading: SignatureAlgorithm,
  contentDigest: Buffer,
  algorithmProtection: boolean,
): VerifiedSignature {
  return {
    signer,
    digestAlgorithm: info.digestAlgorithm,
    signatureAlgorithm: reading,
    lenientPss: reading !== info.signatureAlgorithm,
    contentDigest,
    signedAttributes: info.signedAttrs !== null,
    algorithmProtection,
  };
}
