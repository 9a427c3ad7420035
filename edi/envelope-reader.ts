/**
 * Reads an interchange's envelope from a stream without reading the rest: chunks are taken
 * until the envelope is complete (readHead) or `maxHeadBytes` were read, then the stream is
 * let go. A 2 GiB interchange costs what its first kilobytes cost.
 */
import type { Readable } from 'node:stream';
import { readHead, type HeadReading } from './envelope.js';

/** The most read for an envelope: headers far longer than this are not an interchange's. */
export const maxHeadBytes = 64 * 1024;

/** Reads the envelope of bytes already in memory (a payload kept inline), at most `maxHeadBytes` of them. */
export function readEnvelopeOf(bytes: Buffer): HeadReading {
  const head = bytes.subarray(0, maxHeadBytes);
  const reading = readHead(head.toString('latin1'), true);
  return reading === 'more' ? { kind: 'not-edi' } : reading;
}

/**
 * Reads the envelope from a stream and destroys the stream when done (or when it fails).
 * Latin-1 keeps one character per byte, so X12's fixed ISA offsets hold whatever the encoding.
 */
export async function readEnvelopeFrom(stream: Readable): Promise<HeadReading> {
  let head = '';
  let read = 0;
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      const take = bytes.subarray(0, maxHeadBytes - read);
      head += take.toString('latin1');
      read += take.length;
      // The first chunk usually says whether it is EDI at all.
      const reading = readHead(head, read >= maxHeadBytes);
      if (reading !== 'more') return reading;
    }
    const reading = readHead(head, true);
    return reading === 'more' ? { kind: 'not-edi' } : reading;
  } finally {
    stream.destroy();
  }
}
