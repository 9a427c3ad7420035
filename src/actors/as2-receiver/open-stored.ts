/**
 * Unpacking a large message from its `received` stage instead of memory. An encrypted body is
 * decrypted as it is read (as2/stream/open-enveloped.ts), so the message is never held whole
 * next to its plaintext; the inner layers are then unpacked from the plaintext as usual. Any
 * other body, or one the stream reader does not take (malformed, RC2), is read into one buffer
 * and unpacked as a small one would be, so the outcome is the same on both paths.
 */
import type { Readable } from 'node:stream';
import { unpackIncoming, type UnpackedMessage, type UnpackOptions } from '../as2/index.js';
import { Headers } from '../as2/mime/headers.js';
import { contentTypeOf } from '../as2/mime/parse.js';
import { decryptEnvelopedStream } from '../as2/stream/open-enveloped.js';
import { NotStreamable } from '../as2/stream/read-enveloped.js';
import type { PayloadStore } from '../../storage/payloads/store.js';

export async function unpackStored(
  store: PayloadStore,
  received: { messageId: string; bytes: number },
  headers: Record<string, string>,
  options: UnpackOptions,
): Promise<UnpackedMessage> {
  const open = async (): Promise<AsyncIterable<Buffer>> =>
    (await store.open({ messageId: received.messageId, stage: 'received' })) as AsyncIterable<Buffer>;
  if (labelledPkcs7Mime(headers)) {
    try {
      const outer = await decryptEnvelopedStream(open, options.decryptionKeys);
      return unpackIncoming(Buffer.alloc(0), headers, options, outer);
    } catch (error) {
      if (!(error instanceof NotStreamable)) throw error;
    }
  }
  return unpackIncoming(await readWhole((await open()) as Readable, received.bytes), headers, options);
}

/** What unpack.ts takes for an encrypted (or compressed) body; anything unreadable is not. */
function labelledPkcs7Mime(headers: Record<string, string>): boolean {
  try {
    const type = contentTypeOf(Headers.fromRecord(headers)).value;
    return type === 'application/pkcs7-mime' || type === 'application/x-pkcs7-mime';
  } catch {
    return false;
  }
}

/** The stage in one buffer of its stored size (no list of chunks and concatenation). */
async function readWhole(stream: Readable, bytes: number): Promise<Buffer> {
  const whole = Buffer.allocUnsafe(bytes);
  let at = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (at + chunk.length > bytes) throw new Error('the received stage is longer than stored');
    at += chunk.copy(whole, at);
  }
  if (at !== bytes) throw new Error('the received stage is shorter than stored');
  return whole;
}
