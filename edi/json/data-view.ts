/**
 * Buffers as DataViews, for the JSON form's loops that read or store four bytes at a time
 * (json-plain-segment.ts, json-writer.ts, utf8-output.ts).
 */

/** `b`'s bytes as a DataView. */
export const viewOf = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);

/**
 * The DataView of the Buffer asked for last: a reader or writer asks for the same one for every
 * segment of a push, and one DataView per segment would be garbage to collect.
 */
export class LastView {
  #of: Uint8Array | null = null;
  #view: DataView = new DataView(new ArrayBuffer(0));

  of(b: Uint8Array): DataView {
    if (b !== this.#of) {
      this.#of = b;
      this.#view = viewOf(b);
    }
    return this.#view;
  }
}
