/**
 * Unpacking a large message from its `received` stage instead of memory. An encrypted body is
 * decrypted as it is read (as2/stream/open-enveloped.ts), so the message is never held whole
 * next to its plaintext; the inner layers are then unpacked from the plaintext as usual. Any
 * other body, or one the stream reader does not take (malformed), is read into one buffer
 * and unpacked as a small one would be, so the outcome is the same on both paths. An innermost
 * CompressedData whose entity is the document is inflated straight into the `unpacked` stage
 * (as2/stream/open-compressed.ts) instead of next to the compressed bytes.
 */
import { unpackIncoming, type UnpackedMessage, type UnpackOptions } from '../as2/index.js';
import { Headers } from '../as2/mime/headers.js';
import { contentTypeOf } from '../as2/mime/parse.js';
import { inflatedBody } from '../as2/stream/open-compressed.js';
import { decryptEnvelopedStream } from '../as2/stream/open-enveloped.js';
import { NotStreamable } from '../as2/stream/read-enveloped.js';
import type { PayloadStore } from '../../storage/payloads/store.js';

/** The unpacked message, and the bytes of `unpacked` when it was stored here already. */
export interface UnpackedStored {
  unpacked: UnpackedMessage;
  storedPayloadBytes: number | null;
}

export async function unpackStored(
  store: PayloadStore,
  received: { messageId: string; bytes: number },
  headers: Record<string, string>,
  options: UnpackOptions,
): Promise<UnpackedStored> {
  const open = async (): Promise<AsyncIterable<Buffer>> =>
    (await store.open({ messageId: received.messageId, stage: 'received' })) as AsyncIterable<Buffer>;
  let unpack: (defer: boolean) => UnpackedMessage;
  if (labelledPkcs7Mime(headers)) {
    try {
      const outer = await decryptEnvelopedStream(open, options.decryptionKeys);
      unpack = (defer) =>
        unpackIncoming(Buffer.alloc(0), headers, { ...options, deferInnermostInflate: defer }, outer);
    } catch (error) {
      if (!(error instanceof NotStreamable)) throw error;
    }
  }
  unpack ??= await readWhole(open, received.bytes).then(
    (body) => (defer: boolean) => unpackIncoming(body, headers, { ...options, deferInnermostInflate: defer }),
  );
  const unpacked = unpack(true);
  if (!unpacked.deferredInflate) return { unpacked, storedPayloadBytes: null };
  try {
    const bytes = await store.put(
      { messageId: received.messageId, stage: 'unpacked' },
      inflatedBody(unpacked.deferredInflate),
    );
    return { unpacked, storedPayloadBytes: bytes };
  } catch {
    // put removed what it wrote. Inflating in memory gives decompress()'s refusal, word for
    // word (corrupt data, too large), or the document when only the store failed.
    return { unpacked: unpack(false), storedPayloadBytes: null };
  }
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
async function readWhole(open: () => Promise<AsyncIterable<Buffer>>, bytes: number): Promise<Buffer> {
  const stream = await open();
  const whole = Buffer.allocUnsafe(bytes);
  let at = 0;
  for await (const chunk of stream) {
    if (at + chunk.length > bytes) throw new Error('the received stage is longer than stored');
    at += chunk.copy(whole, at);
  }
  if (at !== bytes) throw new Error('the received stage is shorter than stored');
  return whole;
}
