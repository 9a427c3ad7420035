/**
 * PEM text: the blocks between BEGIN and END lines, with the line each starts on for notes.
 * The text is scanned once for markers (linear in its size whatever it holds), then BEGIN and
 * END lines are paired; a BEGIN without its END is reported, not searched for again and again.
 */

export interface PemBlock {
  label: string;
  /** The whole block, BEGIN to END line, as node:crypto accepts it (headers included). */
  text: string;
  /** The base64 body decoded (headers such as Proc-Type left out). */
  der: Buffer;
  /** 1-based line of the BEGIN line. */
  line: number;
}

export interface PemScan {
  blocks: PemBlock[];
  /** BEGIN lines without a matching END line. */
  unterminated: { label: string; line: number }[];
}

const markerPattern = /-----(BEGIN|END) ([A-Z0-9 #]{1,64})-----/g;

/** True when the text has at least one PEM BEGIN line. */
export function looksLikePem(text: string): boolean {
  return /-----BEGIN [A-Z0-9 #]{1,64}-----/.test(text);
}

/** How many BEGIN lines the text has: cheap, to refuse a huge file before parsing it. */
export function countPemBlocks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('-----BEGIN '); at !== -1; at = text.indexOf('-----BEGIN ', at + 11)) count++;
  return count;
}

function decodeBody(body: string): Buffer {
  // RFC 1421 headers (Proc-Type, DEK-Info) end at an empty line; the base64 follows.
  const base64 = /^\s*[A-Za-z-]+:/.test(body)
    ? body
        .split(/\r?\n\r?\n/)
        .slice(1)
        .join('\n')
    : body;
  return Buffer.from(base64.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
}

export function scanPem(text: string): PemScan {
  const scan: PemScan = { blocks: [], unterminated: [] };
  let line = 1;
  let counted = 0;
  const lineAt = (index: number) => {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
    counted = index;
    return line;
  };
  let open: { label: string; start: number; bodyStart: number; line: number } | undefined;
  for (const marker of text.matchAll(markerPattern)) {
    const [whole, kind, label] = marker as unknown as [string, 'BEGIN' | 'END', string];
    if (kind === 'BEGIN') {
      if (open) scan.unterminated.push({ label: open.label, line: open.line });
      open = {
        label,
        start: marker.index,
        bodyStart: marker.index + whole.length,
        line: lineAt(marker.index),
      };
    } else if (open && label === open.label) {
      const end = marker.index + whole.length;
      scan.blocks.push({
        label,
        text: text.slice(open.start, end),
        der: decodeBody(text.slice(open.bodyStart, marker.index)),
        line: open.line,
      });
      open = undefined;
    }
  }
  if (open) scan.unterminated.push({ label: open.label, line: open.line });
  return scan;
}
