/**
 * The two translations, streamed (EDI bytes to the JSON form's text and back) and in memory
 * (for a payload kept inline, and for tests). Each streamed one yields its output as it reads
 * its input, so memory stays flat whatever the size; a refusal is an EdiJsonError thrown where
 * the input stops making sense.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { DocumentBuilder, walkDocument } from './document.js';
import { EdiWriter } from './edi-writer.js';
import type { EdiEvent, EventSink } from './events.js';
import type { EdiJson } from './form.js';
import { JsonFormReader } from './json-reader.js';
import { JsonTextWriter, type Annotator } from './json-writer.js';
import { EdiReader } from './reader.js';

const feed = (sink: EventSink, events: EdiEvent[]) => {
  for (const e of events) sink.event(e);
};

/** EDI bytes to the JSON form's text, chunk by chunk. */
export async function* ediToJson(
  input: AsyncIterable<Buffer | string> | Readable,
  annotate: Annotator | null = null,
): AsyncGenerator<string> {
  const reader = new EdiReader();
  const writer = new JsonTextWriter(annotate);
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    // Annotated JSON is about four times the EDI. Made and handed on a slice at a time, the
    // strings of one slice die young; made a 256 KiB chunk at a time, they outlived young
    // collections: the benchmark's RSS grew by 153 MiB instead of 35, and GC took a quarter
    // of the CPU.
    for (let at = 0; at < bytes.length; at += sliceBytes) {
      feed(writer, reader.push(bytes.subarray(at, at + sliceBytes)));
      const text = writer.take();
      if (text !== '') yield text;
    }
  }
  feed(writer, reader.end());
  yield writer.take();
}

/** EDI read at a time into JSON (see ediToJson). */
const sliceBytes = 16 * 1024;
/** JSON text read at a time into EDI: about as many segments as sliceBytes of EDI. */
const sliceChars = 64 * 1024;

/** The JSON form's text (UTF-8 bytes) to EDI bytes, chunk by chunk. */
export async function* jsonToEdi(input: AsyncIterable<Buffer | string> | Readable): AsyncGenerator<Buffer> {
  const decoder = new StringDecoder('utf8');
  const reader = new JsonFormReader();
  const writer = new EdiWriter();
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    // In slices for the same reason as ediToJson's.
    for (let at = 0; at < text.length; at += sliceChars) {
      feed(writer, reader.push(text.slice(at, at + sliceChars)));
      const bytes = writer.take();
      if (bytes.length > 0) yield bytes;
    }
  }
  feed(writer, reader.push(decoder.end()));
  feed(writer, reader.end());
  yield writer.take();
}

/** EDI bytes in memory to the JSON form as a document. */
export function ediToDocument(bytes: Buffer): EdiJson {
  const reader = new EdiReader();
  const builder = new DocumentBuilder();
  feed(builder, reader.push(bytes));
  feed(builder, reader.end());
  return builder.document;
}

/** EDI bytes in memory to the JSON form's text. */
export function ediToJsonText(bytes: Buffer, annotate: Annotator | null = null): string {
  const reader = new EdiReader();
  const writer = new JsonTextWriter(annotate);
  feed(writer, reader.push(bytes));
  feed(writer, reader.end());
  return writer.take();
}

/** A document of the JSON form to EDI bytes. */
export function documentToEdi(doc: EdiJson): Buffer {
  const writer = new EdiWriter();
  for (const e of walkDocument(doc)) writer.event(e);
  return writer.take();
}

/** The JSON form's text in memory to EDI bytes. */
export function jsonTextToEdi(text: string): Buffer {
  const reader = new JsonFormReader();
  const writer = new EdiWriter();
  feed(writer, reader.push(text));
  feed(writer, reader.end());
  return writer.take();
}
