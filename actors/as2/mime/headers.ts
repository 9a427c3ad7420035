/**
 * MIME and HTTP header fields: an ordered list with case-insensitive lookup. Header bytes are read
 * as latin1 so every byte survives; values are unfolded (RFC 5322 §2.2.3) and trimmed.
 */
export interface HeaderField {
  name: string;
  value: string;
}

/** Limits that keep a hostile header section from costing more than a normal one. */
export const headerLimits = {
  /** Bytes of one header section, blank line included. */
  maxSectionBytes: 64 * 1024,
  /** Fields in one header section. */
  maxFields: 200,
};

export class MimeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MimeError';
  }
}

export class Headers {
  constructor(readonly fields: readonly HeaderField[]) {}

  get(name: string): string | undefined {
    const lower = name.toLowerCase();
    return this.fields.find((f) => f.name.toLowerCase() === lower)?.value;
  }

  getAll(name: string): string[] {
    const lower = name.toLowerCase();
    return this.fields.filter((f) => f.name.toLowerCase() === lower).map((f) => f.value);
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** A plain object (first value of each name), e.g. for HTTP response headers. */
  toRecord(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const f of this.fields) if (!(f.name in out)) out[f.name] = f.value;
    return out;
  }

  /**
   * From HTTP headers as node:http gives them (lower-case names, arrays for repeats) or as
   * plain objects. Values go through the same unfolding as MIME headers.
   */
  static fromRecord(
    record: Readonly<Record<string, string | readonly string[] | number | undefined>>,
  ): Headers {
    const fields: HeaderField[] = [];
    for (const [name, value] of Object.entries(record)) {
      if (value === undefined) continue;
      const values = Array.isArray(value) ? value : [String(value)];
      for (const v of values) fields.push({ name, value: unfold(String(v)) });
    }
    if (fields.length > headerLimits.maxFields)
      throw new MimeError(`more than ${headerLimits.maxFields} header fields`);
    return new Headers(fields);
  }
}

function unfold(value: string): string {
  return value.replace(/\r?\n(?=[ \t])/g, '').trim();
}

/**
 * Parses a header section (without the blank line that ends it). Lines may end in CRLF or LF;
 * a line starting with a blank continues the previous field.
 */
export function parseHeaderSection(text: string): Headers {
  if (text.length > headerLimits.maxSectionBytes) {
    throw new MimeError(`header section larger than ${headerLimits.maxSectionBytes} bytes`);
  }
  const fields: HeaderField[] = [];
  const lines = text.split(/\r?\n/);
  for (const line of lines) {
    if (line === '' || line === '\r') continue;
    if (line[0] === ' ' || line[0] === '\t') {
      const last = fields[fields.length - 1];
      if (!last) throw new MimeError('header section starts with a continuation line');
      last.value = `${last.value}${line.replace(/\r$/, '')}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MimeError(`not a header field: ${JSON.stringify(line.slice(0, 80))}`);
    const name = line.slice(0, colon).trim();
    if (!/^[!-9;-~]+$/.test(name))
      throw new MimeError(`bad header field name: ${JSON.stringify(name.slice(0, 80))}`);
    fields.push({ name, value: line.slice(colon + 1).replace(/\r$/, '') });
    if (fields.length > headerLimits.maxFields)
      throw new MimeError(`more than ${headerLimits.maxFields} header fields`);
  }
  return new Headers(fields.map((f) => ({ name: f.name, value: f.value.trim() })));
}
