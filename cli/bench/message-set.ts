/**
 * The messages of a run, built before anything is timed with the AS2 sender's own request
 * builder (actors/as2-sender/build.ts: pier's packer, its headers) and kept on disk, so the
 * same set can be fired at two endpoints or again later: `manifest.json` (per message its
 * Message-ID, the MIC its receipt must return and its HTTP headers) and one body file each.
 * A firing sends each body under a Message-ID of its own (the set's with a suffix), so a set
 * fired twice at one receiver is not taken for duplicates: the Message-ID is an HTTP header,
 * outside what is signed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildRequest } from '../../actors/as2-sender/build.js';
import { sourceBytes } from '../../actors/as2/stream/source.js';
import type { As2OutboundContext } from '../../protocol/as2-protocol.js';
import { receiptModeOf, type ReceiptMode } from './shape.js';

export const setFormat = 'pier-bench-set/1';

export interface SetMessage {
  file: string;
  message_id: string;
  /** Received-Content-MIC form: "<base64>, <algorithm>". */
  mic: string;
  headers: Record<string, string>;
}

export interface SetManifest {
  format: typeof setFormat;
  created_at: string;
  as2_from: string;
  as2_to: string;
  size_bytes: number;
  document: string;
  signing_algorithm: string;
  encryption_algorithm: string;
  compression: boolean;
  receipts: ReceiptMode;
  messages: SetMessage[];
}

export interface MessageSet {
  dir: string;
  manifest: SetManifest;
  bodies: Buffer[];
}

/** The `i`th document: `size` bytes of EDIFACT text with its number first, so each MIC differs. */
export function benchDocument(i: number, size: number): Buffer {
  const line = "UNB+UNOC:3+SENDER:14+RECEIVER:14+261127:1200+1'UNH+1+ORDERS:D:96A:UN'BGM+220+4711+9'\n";
  return Buffer.from(`${i}:${line.repeat(Math.ceil(size / line.length) + 1)}`.slice(0, size));
}

export interface BuildOptions {
  count: number;
  /** The document: `size` bytes of EDI text each, or this file's bytes (each with its own Message-ID). */
  size: number;
  file?: string;
  userAgent: string;
  onBuilt?: (done: number) => void;
}

export async function buildSet(
  dir: string,
  context: As2OutboundContext,
  o: BuildOptions,
): Promise<MessageSet> {
  mkdirSync(path.join(dir, 'bodies'), { recursive: true });
  const fileBytes = o.file ? readFileSync(o.file) : null;
  const tag = `${Date.now().toString(36)}-${process.pid}`;
  const messages: SetMessage[] = [];
  const bodies: Buffer[] = [];
  for (let i = 0; i < o.count; i++) {
    const messageId = `<bench-${tag}-${i}@pier>`;
    const built = buildRequest(
      {
        context,
        fileName: fileBytes ? path.basename(o.file!) : `bench-${i}.edi`,
        messageId,
        userAgent: o.userAgent,
        compressionOrder: 'before-sign',
        interop: context.interop,
        contentType: fileBytes ? 'application/octet-stream' : 'application/edifact',
      },
      fileBytes ?? benchDocument(i, o.size),
    );
    const body = await sourceBytes(built.body);
    const file = `bodies/${String(i).padStart(6, '0')}.bin`;
    writeFileSync(path.join(dir, file), body);
    const { 'Message-ID': _, Date: _date, ...headers } = built.headers;
    messages.push({ file, message_id: messageId, mic: built.mic, headers });
    bodies.push(body);
    o.onBuilt?.(i + 1);
  }
  const manifest: SetManifest = {
    format: setFormat,
    created_at: new Date().toISOString(),
    as2_from: context.organization_as2id,
    as2_to: context.partner_as2id,
    size_bytes: fileBytes ? fileBytes.length : o.size,
    document: o.file ? path.basename(o.file) : 'EDI text',
    signing_algorithm: context.signing_algorithm,
    encryption_algorithm: context.encryption_algorithm,
    compression: context.compression,
    receipts: receiptModeOf(context),
    messages,
  };
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
  return { dir, manifest, bodies };
}

/** A set built earlier, read back whole (bodies in memory, so reading costs nothing while timed). */
export function loadSet(dir: string): MessageSet {
  let manifest: SetManifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as SetManifest;
  } catch (error) {
    throw new Error(`${dir} holds no readable message set (manifest.json): ${(error as Error).message}`);
  }
  if (manifest.format !== setFormat) throw new Error(`${dir}: not a ${setFormat} message set`);
  return { dir, manifest, bodies: manifest.messages.map((m) => readFileSync(path.join(dir, m.file))) };
}
