/**
 * Unpacking a large message from its `received` stage instead of memory. An encrypted body is
 * decrypted as it is read (as2/stream/open-enveloped.ts), so the message is never held whole
 * next to its plaintext; the inner layers are then unpacked from the plaintext as usual. Any
 * other body, or one the stream reader does not take (malformed), is read into one buffer
 * and unpacked as a small one would be, so the outcome is the same on both paths. An innermost
 * CompressedData whose entity is the document is inflated straight into the `unpacked` stage
 * (as2/stream/open-compressed.ts) instead of next to the compressed bytes.
 *
 * A body whose refusal does not depend on more than its first bytes is not read whole
 * (garbage must not cost memory in proportion to its size): one the partner's policy
 * refuses by its Content-Type alone, and one labelled as CMS that is neither BER nor base64.
 */
import { unpackIncoming, type UnpackedMessage, type UnpackOptions } from '../as2/index.js';
import { Headers } from '../as2/mime/headers.js';
import { contentTypeOf } from '../as2/mime/parse.js';
import { inflatedBody } from '../as2/stream/open-compressed.js';
import { decryptEnvelopedStream } from '../as2/stream/open-enveloped.js';
import { NotStreamable } from '../as2/stream/read-enveloped.js';
import type { Readable } from 'node:stream';
import type { PayloadStore } from '../../storage/payloads/store.js';
import { limits } from '../../limits/limits.js';

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
  // Every stream opened is closed at the end, also one a reader gave up on half way.
  const opened: Readable[] = [];
  const open = async (): Promise<AsyncIterable<Buffer>> => {
    const stream = await store.open({ messageId: received.messageId, stage: 'received' });
    opened.push(stream);
    return stream as AsyncIterable<Buffer>;
  };
  try {
    return await unpackFrom(store, received, headers, options, open);
  } finally {
    for (const stream of opened) stream.destroy();
  }
}

async function unpackFrom(
  store: PayloadStore,
  received: { messageId: string; bytes: number },
  headers: Record<string, string>,
  options: UnpackOptions,
  open: () => Promise<AsyncIterable<Buffer>>,
): Promise<UnpackedStored> {
  let unpack: ((defer: boolean) => UnpackedMessage) | undefined;
  const inMemory = (body: Buffer) => (defer: boolean) =>
    unpackIncoming(body, headers, { ...options, deferInnermostInflate: defer });
  const type = topType(headers);
  if (type === 'pkcs7-mime') {
    try {
      const outer = await decryptEnvelopedStream(
        open,
        options.decryptionKeys,
        options.partnerCertificates ?? options.verificationCerts,
      );
      unpack = (defer) =>
        unpackIncoming(Buffer.alloc(0), headers, { ...options, deferInnermostInflate: defer }, outer);
    } catch (error) {
      if (!(error instanceof NotStreamable)) throw error;
      // Neither DER/BER nor base64: no reading of the whole makes CMS of it, and the refusal
      // (unreadable CMS) is found in its first bytes.
      const head = await readHead(open, limits.judgedPrefixBytes);
      if (head[0] !== 0x30 && !looksLikeBase64(head)) unpack = inMemory(head);
    }
  } else if (type === 'other' && (options.requireEncrypted || options.requireSigned)) {
    // Neither encrypted nor signed, and the policy requires one: refused by its Content-Type,
    // whatever the body holds (unpack.ts reads no byte of it before that refusal).
    unpack = inMemory(Buffer.alloc(0));
  }
  unpack ??= inMemory(await readWhole(open, received.bytes));
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

/**
 * What unpack.ts makes of the top Content-Type: an encrypted (or compressed) body, a signed
 * one, anything else; `unreadable` when it cannot read it (it refuses that itself).
 */
function topType(headers: Record<string, string>): 'pkcs7-mime' | 'signed' | 'other' | 'unreadable' {
  try {
    const type = contentTypeOf(Headers.fromRecord(headers)).value;
    if (type === 'application/pkcs7-mime' || type === 'application/x-pkcs7-mime') return 'pkcs7-mime';
    return type === 'multipart/signed' ? 'signed' : 'other';
  } catch {
    return 'unreadable';
  }
}

/** Base64 text (with line breaks and spaces) as far as `head` goes. */
function looksLikeBase64(head: Buffer): boolean {
  for (const byte of head) {
    const ok =
      (byte >= 0x41 && byte <= 0x5a) ||
      (byte >= 0x61 && byte <= 0x7a) ||
      (byte >= 0x30 && byte <= 0x39) ||
      byte === 0x2b ||
      byte === 0x2f ||
      byte === 0x3d ||
      byte === 0x0d ||
      byte === 0x0a ||
      byte === 0x20 ||
      byte === 0x09;
    if (!ok) return false;
  }
  return true;
}

/** The first `bytes` of the stage (fewer when it is shorter). */
async function readHead(open: () => Promise<AsyncIterable<Buffer>>, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await open()) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= bytes) break;
  }
  return Buffer.concat(chunks, size).subarray(0, bytes);
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
