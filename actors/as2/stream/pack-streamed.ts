/**
 * packOutgoing (../pack.ts) for a document too large to hold in memory: the same layers in the
 * same order with the same options, giving the same bytes and the same MIC (random keys, IVs,
 * boundaries and signing times aside), but read from a file and built through temporary files,
 * so memory stays at a few slices whatever the size. The caller owns `temp` and removes it once
 * the body has been sent.
 */
import { checkModern, payloadHeaders, signingOptions, type PackOptions } from '../pack.js';
import type { Mic } from '../mic.js';
import { Base64Lines } from './base64-lines.js';
import {
  compressedEntity,
  digestSource,
  encryptedEntity,
  signedEntity,
  type StreamedEntity,
} from './layers.js';
import { intoFile, transformInto } from './pipe.js';
import { readPiece, sourceOf, type FileRange, type Source } from './source.js';
import type { TempFiles } from './temp-files.js';

/** From this size on, a document is sent from a file through the streamed path (as the receiver's pool). */
export const streamFromBytes = 1024 * 1024;

export interface StreamedMessage {
  /** The HTTP body, its length known, its bytes read when it is written. */
  body: Source;
  /** Headers of the outermost entity, to send as HTTP headers (Content-Type first). */
  headers: Record<string, string>;
  contentType: string;
  mic: Mic;
}

export async function packOutgoingStreamed(
  document: FileRange,
  options: PackOptions,
  temp: TempFiles,
): Promise<StreamedMessage> {
  checkModern(options);
  let current: StreamedEntity = {
    headers: payloadHeaders(options),
    body:
      options.transferEncoding === 'base64'
        ? await intoFile(temp.name('base64'), (sink) =>
            transformInto(readPiece(document), new Base64Lines(), sink),
          )
        : document,
  };
  const compression = options.compress ?? 'off';
  const sign = options.sign ?? null;
  if (compression === 'before-sign' || (compression === 'after-sign' && !sign))
    current = await compressedEntity(current, temp);
  let mic: Mic | null = null;
  if (sign) {
    const signed = await signedEntity(current, signingOptions(sign, options));
    mic = { algorithm: sign.algorithm, digest: signed.contentDigest };
    current = signed.entity;
    if (compression === 'after-sign') current = await compressedEntity(current, temp);
  }
  if (options.encrypt) {
    const micAlgorithm = mic ? null : (options.micAlgorithm ?? 'sha-256');
    const encrypted = await encryptedEntity(current, options.encrypt, micAlgorithm, temp);
    if (micAlgorithm) mic = { algorithm: micAlgorithm, digest: encrypted.contentDigest! };
    current = encrypted.entity;
  }
  const body = sourceOf(current.body);
  if (!mic) {
    // Neither signed nor encrypted: the MIC covers the content without headers (RFC 4130 §7.3.1).
    const algorithm = options.micAlgorithm ?? 'sha-256';
    mic = { algorithm, digest: await digestSource(body, algorithm) };
  }
  const headers: Record<string, string> = { 'MIME-Version': '1.0' };
  for (const [name, value] of current.headers) headers[name] = value;
  return { body, headers, contentType: headers['Content-Type']!, mic };
}
