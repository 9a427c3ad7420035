/**
 * Structured header values: `type/subtype; name=value; name="quoted"` (RFC 2045 §5.1) with
 * RFC 2231 extended and continued parameters (`filename*=UTF-8''%e2%82%ac.edi`,
 * `filename*0=...; filename*1=...`). Reading is lenient, as partners are: unquoted values with
 * blanks, a trailing `;`, upper-case names. Writing is strict.
 */
import { MimeError } from './headers.js';

export interface StructuredValue {
  /** The part before the first `;`, lower-cased (`multipart/signed`, `attachment`). */
  value: string;
  /** Parameter names lower-cased, RFC 2231 sections joined and decoded. */
  params: Map<string, string>;
}

const maxParameters = 64;

export function parseStructuredValue(header: string): StructuredValue {
  const pieces = splitOutsideQuotes(header);
  const value = (pieces.shift() ?? '').trim().toLowerCase();
  const simple = new Map<string, string>();
  const extended = new Map<string, { index: number; encoded: boolean; text: string }[]>();
  if (pieces.length > maxParameters) throw new MimeError(`more than ${maxParameters} parameters`);
  for (const piece of pieces) {
    const eq = piece.indexOf('=');
    if (eq <= 0) continue;
    const rawName = piece.slice(0, eq).trim().toLowerCase();
    const text = unquote(piece.slice(eq + 1).trim());
    const section = /^([^*]+)\*(?:(\d{1,3})\*?)?$/.exec(rawName);
    if (section) {
      const [, base, index] = section;
      const list = extended.get(base!) ?? [];
      list.push({ index: Number(index ?? 0), encoded: rawName.endsWith('*'), text });
      extended.set(base!, list);
    } else if (!simple.has(rawName)) {
      simple.set(rawName, text);
    }
  }
  const params = new Map(simple);
  for (const [name, sections] of extended) {
    // RFC 2231: the extended form wins over a plain one of the same name.
    params.set(name, joinSections(sections.sort((a, b) => a.index - b.index)));
  }
  return { value, params };
}

function splitOutsideQuotes(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '\\' && i + 1 < text.length) {
      current += c + text[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ';' && !quoted) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}

function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    return text.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return text;
}

function joinSections(sections: { index: number; encoded: boolean; text: string }[]): string {
  let charset = 'utf-8';
  const bytes: Buffer[] = [];
  sections.forEach((s, i) => {
    let text = s.text;
    if (s.encoded && i === 0) {
      const parts = /^([^']*)'[^']*'(.*)$/s.exec(text);
      if (parts) {
        charset = parts[1]!.toLowerCase() || 'utf-8';
        text = parts[2]!;
      }
    }
    bytes.push(s.encoded ? percentDecode(text) : Buffer.from(text, 'latin1'));
  });
  const joined = Buffer.concat(bytes);
  return charset === 'iso-8859-1' || charset === 'us-ascii' ? joined.toString('latin1') : decodeUtf8(joined);
}

function percentDecode(text: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      out.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(text.charCodeAt(i) & 0xff);
  }
  return Buffer.from(out);
}

/** Header bytes were read as latin1; a raw UTF-8 name (RFC 6532) is turned back into text. */
export function decodeUtf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/** Header text read as latin1 whose bytes may be UTF-8: a filename sent raw. */
export function latin1TextAsUtf8(text: string): string {
  return /[\x80-\xff]/.test(text) ? decodeUtf8(Buffer.from(text, 'latin1')) : text;
}

const tokenPattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `; name=value`, quoted unless the value is a plain token (or always, with `alwaysQuote`). */
export function formatParameter(name: string, value: string, alwaysQuote = false): string {
  if (/[\r\n]/.test(value)) throw new MimeError(`parameter ${name} contains a line break`);
  if (!alwaysQuote && tokenPattern.test(value)) return `; ${name}=${value}`;
  return `; ${name}="${value.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * The filename parameter of Content-Disposition. ASCII names are written quoted (the form every
 * gateway reads) or as a bare token (`filenameQuoting: 'token'`, for partners that keep the
 * quotes in the name); others get an RFC 2231 `filename*` plus an ASCII fallback.
 */
export function formatFilename(filename: string, quoting: 'quoted' | 'token' = 'quoted'): string {
  if (/^[\x20-\x7e]*$/.test(filename)) {
    return formatParameter('filename', filename, quoting === 'quoted');
  }
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_');
  const encoded = Array.from(Buffer.from(filename, 'utf8'))
    .map((b) =>
      /[A-Za-z0-9!#$&+.^_`|~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
  return `${formatParameter('filename', fallback, true)}; filename*=UTF-8''${encoded}`;
}
