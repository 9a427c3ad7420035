/**
 * A source's look at the payload it just stored: when it is an X12 or EDIFACT interchange, its
 * envelope goes with the message it offers, so the acceptance can resolve the parties from the
 * interchange ids and routes can match on the document type. Only the head is read (at most
 * 64 KiB, edi/envelope-reader.ts), from the bytes in hand or from the stored stage.
 * A payload that is not EDI, or whose envelope is broken, is offered as it was.
 */
import type { Readable } from 'node:stream';
import { readEnvelopeFrom, readEnvelopeOf } from '../../edi/envelope-reader.js';
import type { HeadReading } from '../../edi/envelope.js';
import { ediRecordOf, type EdiRecord } from '../../edi/record.js';
import { inlineBytes } from '../../storage/payloads/inline.js';

/**
 * What the source kept of the payload: its bytes inline (base64), or its first bytes still in
 * hand (`head`, at least `maxHeadBytes` of them or all), or a way to read it from where it is.
 */
export interface KeptPayload {
  content?: string | undefined;
  head?: Uint8Array | undefined;
  open: () => Promise<Readable>;
}

/** The envelope to offer with the message, or undefined when the payload is not an interchange. */
export async function envelopeOf(kept: KeptPayload): Promise<EdiRecord | undefined> {
  const reading: HeadReading =
    kept.content !== undefined
      ? readEnvelopeOf(inlineBytes(kept.content))
      : kept.head !== undefined
        ? readEnvelopeOf(Buffer.from(kept.head.buffer, kept.head.byteOffset, kept.head.byteLength))
        : await readEnvelopeFrom(await kept.open());
  return reading.kind === 'envelope' ? ediRecordOf(reading.envelope) : undefined;
}
