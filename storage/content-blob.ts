/**
 * Small stages' bytes as the flow's statements take them: one binary `bytea` parameter holding
 * every stage of a batch back to back, each row of the batch's JSON naming its slice
 * (`content_at`, `content_bytes`). As base64 inside that JSON (the form they cross threads in,
 * storage/payloads/inline.ts), PostgreSQL lexed every character of them as a JSON string and
 * decoded them again, and a third more bytes went over the connection: about a tenth of
 * PostgreSQL's CPU per received message (benchmarks/history/2026-11-23-warm-up-and-stage-bytes-as-one-binary-parameter.md).
 */
export interface ContentSlice {
  /** Where the stage starts in the blob, from 0; null when it has no inline bytes. */
  content_at: number | null;
  content_bytes: number | null;
}

export class ContentBlob {
  readonly #parts: Buffer[] = [];
  #length = 0;

  /** Adds a stage's base64 bytes (none: kept in the store) and says where they are. */
  add(base64: string | null | undefined): ContentSlice {
    if (base64 === null || base64 === undefined) return { content_at: null, content_bytes: null };
    const bytes = Buffer.from(base64, 'base64');
    const at = this.#length;
    this.#parts.push(bytes);
    this.#length += bytes.length;
    return { content_at: at, content_bytes: bytes.length };
  }

  /** The parameter: a Buffer, which the pg driver sends in binary, as it is. */
  bytes(): Buffer {
    return Buffer.concat(this.#parts, this.#length);
  }
}

/** A row's stage bytes (null when it has none): `row` is the alias of the JSON's recordset. */
export const contentSql = (blob: string, row: string): string =>
  `substring(${blob}::bytea from ${row}.content_at + 1 for ${row}.content_bytes)`;
