/**
 * The layers of an outgoing message built over streamed content, each the counterpart of the
 * in-memory one (cms/compressed-data.ts compress, smime/signed.ts buildSignedEntity,
 * cms/enveloped-data.ts encryptEnvelopedChunks) and sharing its parts: the same DER structure
 * and MIME headers, the content passed through zlib, a hash or a cipher a slice at a time, and
 * the large results written to temporary files.
 */
import { createHash, createSign } from 'node:crypto';
import { integer, octetString, oid, algorithmIdentifier, setOf } from '../../../pki/asn1/writer.js';
import { startContentEncryption } from '../../../pki/cms/content-encryption.js';
import { envelopedVersion, recipientInfo, type EncryptOptions } from '../../../pki/cms/enveloped-data.js';
import { finishSignature, signatureSchemeFor } from '../../../pki/cms/rsa-signature.js';
import { signDetached } from '../../../pki/cms/signed-data.js';
import { headerSection, newBoundary, type HeaderList } from '../mime/build.js';
import { pkcs7MimeEntity } from '../smime/pkcs7-mime.js';
import { multipartSignedType, signaturePart, type SignedEntityOptions } from '../smime/signed.js';
import { contentEncryptionAlgorithms } from '../../../pki/algorithms/encryption-algorithms.js';
import { micAlgorithms, type MicAlgorithm } from '../../../pki/algorithms/mic-algorithms.js';
import { oids } from '../../../pki/oids.js';
import { deflateInto } from './deflate.js';
import { intoFile } from './pipe.js';
import { derOf, readSource, sourceOf, type Piece, type Source } from './source.js';
import type { TempFiles } from './temp-files.js';

export interface StreamedEntity {
  headers: HeaderList;
  body: Piece | Source;
}

function entitySource(entity: StreamedEntity): Source {
  return sourceOf(headerSection(entity.headers), entity.body);
}

/** The digest of a source, read once. */
export async function digestSource(source: Source, algorithm: MicAlgorithm): Promise<Buffer> {
  const hash = createHash(micAlgorithms[algorithm].nodeHash);
  for await (const chunk of readSource(source)) hash.update(chunk);
  return hash.digest();
}

/** An application/pkcs7-mime entity (smime-type=compressed-data) around the entity. */
export async function compressedEntity(entity: StreamedEntity, temp: TempFiles): Promise<StreamedEntity> {
  const compressed = await intoFile(temp.name('compressed'), (sink) =>
    deflateInto(entitySource(entity), sink),
  );
  const der = derOf(0x30, [
    oid(oids.compressedData),
    derOf(0xa0, [
      derOf(0x30, [
        integer(0),
        algorithmIdentifier(oids.zlibCompress),
        derOf(0x30, [oid(oids.data), derOf(0xa0, [derOf(0x04, [compressed])])]),
      ]),
    ]),
  ]);
  return { headers: pkcs7MimeEntity('compressed-data', Buffer.alloc(0), 'binary').headers, body: der };
}

export interface SignedStreamed {
  entity: StreamedEntity;
  /** Digest of the signed entity: the MIC of a signed message. */
  contentDigest: Buffer;
}

/** multipart/signed around the entity; the entity is read once (its digest, and for RSASSA-PSS without signed attributes the signature). */
export async function signedEntity(
  entity: StreamedEntity,
  options: SignedEntityOptions,
): Promise<SignedStreamed> {
  const content = entitySource(entity);
  const scheme = signatureSchemeFor(options.privateKey, options.scheme);
  const nodeHash = micAlgorithms[options.digest].nodeHash;
  const hash = createHash(nodeHash);
  // Only this case signs the content itself; the others sign its digest or the signed attributes.
  const signer = scheme !== 'rsa-pkcs1' && !(options.signedAttributes ?? true) ? createSign(nodeHash) : null;
  for await (const chunk of readSource(content)) {
    hash.update(chunk);
    signer?.update(chunk);
  }
  const contentDigest = hash.digest();
  const contentSignature = signer
    ? finishSignature(signer, options.digest, scheme, options.privateKey)
    : undefined;
  const signature = signDetached([], options, contentDigest, contentSignature);
  const boundary = newBoundary();
  // The delimiters of mime/build.ts buildMultipartBody, the parts' pieces kept apart.
  const delimiter = () => Buffer.from(`--${boundary}\r\n`, 'latin1');
  const crlf = () => Buffer.from('\r\n', 'latin1');
  const body = sourceOf(
    delimiter(),
    content,
    crlf(),
    delimiter(),
    signaturePart(signature),
    crlf(),
    Buffer.from(`--${boundary}--\r\n`, 'latin1'),
  );
  return {
    entity: { headers: [['Content-Type', multipartSignedType(boundary, options)]], body },
    contentDigest,
  };
}

export interface EncryptedStreamed {
  entity: StreamedEntity;
  /** Digest of the entity encrypted, when asked: the MIC of an encrypted, unsigned message. */
  contentDigest: Buffer | null;
}

/** EnvelopedData (CBC) or AuthEnvelopedData (GCM) around the entity, the ciphertext in a temporary file. */
export async function encryptedEntity(
  entity: StreamedEntity,
  options: EncryptOptions,
  micAlgorithm: MicAlgorithm | null,
  temp: TempFiles,
): Promise<EncryptedStreamed> {
  const started = startContentEncryption(options.algorithm);
  const hash = micAlgorithm ? createHash(micAlgorithms[micAlgorithm].nodeHash) : null;
  const ciphertext = await intoFile(temp.name('encrypted'), async (sink) => {
    for await (const chunk of readSource(entitySource(entity))) {
      hash?.update(chunk);
      await sink.write(started.cipher.update(chunk));
    }
    await sink.write(started.cipher.final());
  });
  const recipient = recipientInfo(options, started.key);
  started.key.fill(0);
  const gcm = contentEncryptionAlgorithms[options.algorithm].mode === 'gcm';
  // The structure of cms/enveloped-data.ts encryptEnvelopedChunks; the mac follows the content.
  const fields: (Source | Piece)[] = [
    integer(envelopedVersion(options, gcm)),
    setOf([recipient]),
    derOf(0x30, [oid(oids.data), started.algorithm, derOf(0x80, [ciphertext])]),
  ];
  if (gcm) fields.push(octetString(started.tag()!));
  const der = derOf(0x30, [
    oid(gcm ? oids.authEnvelopedData : oids.envelopedData),
    derOf(0xa0, [derOf(0x30, fields)]),
  ]);
  const type = gcm ? 'authEnveloped-data' : 'enveloped-data';
  return {
    entity: { headers: pkcs7MimeEntity(type, Buffer.alloc(0), 'binary').headers, body: der },
    contentDigest: hash ? hash.digest() : null,
  };
}
