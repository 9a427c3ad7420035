/** PEM text: the blocks between BEGIN and END lines, with the line each starts on for notes. */

export interface PemBlock {
  label: string;
  /** The whole block, BEGIN to END line, as node:crypto accepts it (headers included). */
  text: string;
  /** The base64 body decoded (headers such as Proc-Type left out). */
  der: Buffer;
  /** 1-based line of the BEGIN line. */
  line: number;
}

const blockPattern = /-----BEGIN ([A-Z0-9 #]{1,64})-----([\s\S]*?)-----END \1-----/g;

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

export function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  let line = 1;
  let counted = 0;
  for (const match of text.matchAll(blockPattern)) {
    for (let i = text.indexOf('\n', counted); i !== -1 && i < match.index; i = text.indexOf('\n', i + 1))
      line++;
    counted = match.index;
    // RFC 1421 headers (Proc-Type, DEK-Info) end at an empty line; the base64 follows.
    const body = match[2]!;
    const base64 = /^[\s]*[A-Za-z-]+:/.test(body)
      ? body
          .split(/\r?\n\r?\n/)
          .slice(1)
          .join('\n')
      : body;
    blocks.push({
      label: match[1]!,
      text: match[0],
      der: Buffer.from(base64.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'),
      line,
    });
  }
  return blocks;
}
