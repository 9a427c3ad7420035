/**
 * The two translations, streamed (EDI bytes to the JSON form's UTF-8 bytes and back) and in memory
 * (for a payload kept inline, and for tests). Each streamed one yields its output as it reads
 * its input, so memory stays flat whatever the size; a refusal is an EdiJsonError thrown where
 * the input stops making sense.
 */
import type { Readable } from 'node:stream';
import { DocumentBuilder, walkDocument } from './document.js';
import { EdiWriter } from './edi-writer.js';
import type { EdiJson } from './form.js';
import { JsonFormReader } from './json-reader.js';
import { JsonTextWriter, type Annotator } from './json-writer.js';
import { EdiReader } from './edi-reader.js';

/** EDI bytes to the JSON form's UTF-8 bytes, chunk by chunk. */
export async function* ediToJson(
  input: AsyncIterable<Buffer | string> | Readable,
  annotate: Annotator | null = null,
): AsyncGenerator<Buffer> {
  const reader = new EdiReader();
  const writer = new JsonTextWriter(annotate);
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    // Annotated JSON is about four times the EDI. Read a slice at a time, the EDI text and the
    // events of one slice die young; read a 256 KiB chunk at a time, they outlived young
    // collections: the benchmark's RSS grew by 153 MiB instead of 35, and GC took a quarter
    // of the CPU. The JSON is handed on in Buffers of a quarter mebibyte (utf8-output.ts).
    for (let at = 0; at < bytes.length; at += sliceBytes) {
      reader.push(bytes.subarray(at, at + sliceBytes), writer);
      if (writer.size >= handOnBytes) yield* writer.take();
    }
  }
  reader.end(writer);
  yield* writer.take();
}

/** EDI read at a time into JSON (see ediToJson). */
const sliceBytes = 16 * 1024;
/** Output held before it is handed on, either way: most of one of the writers' Buffers. */
const handOnBytes = 192 * 1024;
/**
 * JSON read at a time, in bytes: about as many segments as sliceBytes of EDI. A value not
 * complete after a slice is refused once it is longer than the reader takes, so a slice of a
 * different size would refuse a different set of documents.
 */
const sliceJson = 64 * 1024;

/** The JSON form's text (UTF-8 bytes, or text) to EDI bytes, chunk by chunk. */
export async function* jsonToEdi(input: AsyncIterable<Buffer | string> | Readable): AsyncGenerator<Buffer> {
  const reader = new JsonFormReader();
  const writer = new EdiWriter();
  for await (const chunk of input) {
    // Read as bytes, not decoded. Text (the API's spool, which decoded it) is encoded again a
    // slice of characters at a time, never between the two halves of a surrogate pair.
    let slice = sliceJson;
    for (let at = 0; at < chunk.length; at += slice) {
      slice =
        typeof chunk === 'string' && isHighSurrogate(chunk.charCodeAt(at + sliceJson - 1))
          ? sliceJson + 1
          : sliceJson;
      const bytes =
        typeof chunk === 'string'
          ? Buffer.from(chunk.slice(at, at + slice), 'utf8')
          : chunk.subarray(at, at + slice);
      reader.push(bytes, writer);
      if (writer.size >= handOnBytes) yield writer.take();
    }
  }
  reader.end(writer);
  yield writer.take();
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** EDI bytes in memory to the JSON form as a document. */
export function ediToDocument(bytes: Buffer): EdiJson {
  const reader = new EdiReader();
  const builder = new DocumentBuilder();
  reader.push(bytes, builder);
  reader.end(builder);
  return builder.document;
}

/** EDI bytes in memory to the JSON form's text. */
export function ediToJsonText(bytes: Buffer, annotate: Annotator | null = null): string {
  const reader = new EdiReader();
  const writer = new JsonTextWriter(annotate);
  reader.push(bytes, writer);
  reader.end(writer);
  return Buffer.concat(writer.take()).toString('utf8');
}

/** A document of the JSON form to EDI bytes. */
export function documentToEdi(doc: EdiJson): Buffer {
  const writer = new EdiWriter();
  for (const e of walkDocument(doc)) writer.event(e);
  // A copy: the writer's buffer is a quarter mebibyte, however small the interchange.
  return Buffer.from(writer.take());
}

/** The JSON form's text in memory to EDI bytes. */
export function jsonTextToEdi(text: string): Buffer {
  const reader = new JsonFormReader();
  const writer = new EdiWriter();
  reader.push(Buffer.from(text, 'utf8'), writer);
  reader.end(writer);
  return Buffer.from(writer.take());
}
