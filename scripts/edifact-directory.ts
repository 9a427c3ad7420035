/**
 * Builds edi/json/directory/edifact-d96a.json.gz, the UN/EDIFACT directory D.96A that
 * annotations name segments, elements and codes from, out of UNECE's own distribution of it
 * (d96a.zip: nested zips of fixed-width text files; the directory's README.md says where to get
 * it). Keeps only what annotation needs: segment, composite and element names, each segment's
 * and composite's element list, and each code's name (no descriptions, notes or messages).
 *
 *   node --import tsx scripts/edifact-directory.ts path/to/d96a.zip
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync, inflateRawSync } from 'node:zlib';

/** The files of a zip archive by upper-case name (stored or deflated, as PKZIP wrote them). */
function unzip(zip: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  let at = zip.readUInt32LE(end + 16);
  for (let n = zip.readUInt16LE(end + 10); n > 0; n--) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('a damaged central directory');
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const name = zip.toString('latin1', at + 46, at + 46 + nameLength).toUpperCase();
    const local = zip.readUInt32LE(at + 42);
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(data, data + size);
    if (method !== 0 && method !== 8)
      throw new Error(`${name}: compression method ${method} is not read here`);
    files.set(name, method === 0 ? raw : inflateRawSync(raw));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return files;
}

/** A file inside one of the distribution's inner zips. */
function inner(outer: Map<string, Buffer>, zip: string, file: string): string[] {
  const archive = outer.get(zip);
  if (!archive) throw new Error(`${zip} is not in the archive`);
  const text = unzip(archive).get(file);
  if (!text) throw new Error(`${file} is not in ${zip}`);
  return text.toString('latin1').split(/\r?\n/);
}

/** Names printed in capitals (segments, composites) as the other names are written. */
const sentence = (name: string) => name.charAt(0) + name.slice(1).toLowerCase();
const squeeze = (name: string) => name.trim().replace(/\s+/g, ' ');

// Column layouts of the directory's files; a change indicator (+ * # | - X) may stand before an id.
const segmentHead = /^ {0,6}[+*#|X-]{0,2} {0,6}([A-Z]{3}) {4}(\S.*)$/;
const compositeHead = /^ {0,6}[+*#|X-]{0,2} {0,6}(C\d{3}) {2}(\S.*)$/;
const elementHead = /^ {0,6}[+*#|X-]{0,2} {0,6}(\d{4}) {2}(\S.*)$/;
/** A segment's or composite's element line: position (segments only), id, name, status, format. */
const entry = /^(?:\d{3})?[ +*#|X-]* ([A-Z0-9]{4}) +(\S.*?) {2,}[MC](?: |$)/;
/** A code line: the code in columns 2 to 9 (numbers right-aligned, letters left), the name from 10. */
const codeLine = /^[+*#|X -]([ A-Z0-9/.-]{8}) (\S.*)$/;
/** A code name's second line starts in column 10 too (its description starts in 13). */
const nameLine = /^ {10}(\S.*)$/;

function segments(lines: string[]): Record<string, [string, string[]]> {
  const out: Record<string, [string, string[]]> = {};
  let current: string[] | null = null;
  for (const line of lines) {
    const head = segmentHead.exec(line);
    if (head) {
      current = [];
      out[head[1]!] = [sentence(squeeze(head[2]!)), current];
      continue;
    }
    const e = entry.exec(line);
    // Only the segment's own elements start with a position; component lines belong to composites.
    if (current && e && /^\d{3}/.test(line)) current.push(e[1]!);
  }
  return out;
}

function composites(lines: string[]): Record<string, [string, string[]]> {
  const out: Record<string, [string, string[]]> = {};
  let current: string[] | null = null;
  for (const line of lines) {
    const head = compositeHead.exec(line);
    if (head && !/ {2,}[MC] /.test(line)) {
      current = [];
      out[head[1]!] = [sentence(squeeze(head[2]!)), current];
      continue;
    }
    const e = entry.exec(line);
    if (current && e && /^\d{3}/.test(line)) current.push(e[1]!);
  }
  return out;
}

function elements(lines: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const head = elementHead.exec(line);
    if (head) out[head[1]!] = squeeze(head[2]!);
  }
  return out;
}

/** Code names by data element; descriptions (indented further) and notes are left out. */
function codes(lines: string[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let current: Record<string, string> | null = null;
  let last: string | null = null;
  for (const line of lines) {
    const head = /^[+*#|X -] (\d{4}) {2}\S/.exec(line);
    if (head) {
      current = out[head[1]!] = {};
      last = null;
      continue;
    }
    const more = nameLine.exec(line);
    if (current && last !== null && more) {
      current[last] += ` ${squeeze(more[1]!)}`;
      continue;
    }
    const code = codeLine.exec(line);
    last = null;
    if (!current || !code || code[1]!.trim() === '' || /\s/.test(code[1]!.trim())) continue;
    last = code[1]!.trim();
    current[last] = squeeze(code[2]!);
  }
  for (const [element, list] of Object.entries(out)) if (Object.keys(list).length === 0) delete out[element];
  return out;
}

const zipFile = process.argv[2];
if (!zipFile) {
  console.error('usage: node --import tsx scripts/edifact-directory.ts path/to/d96a.zip');
  process.exit(2);
}
const outer = unzip(readFileSync(zipFile));
const directory = {
  directory: 'D.96A',
  segments: segments(inner(outer, 'TRSD.ZIP', 'TRSD.96A')),
  composites: composites(inner(outer, 'TRCD.ZIP', 'TRCD.96A')),
  elements: elements(inner(outer, 'TRED.ZIP', 'TRED.96A')),
  codes: {
    ...codes(inner(outer, 'UNCL.ZIP', 'UNCL-1.96A')),
    ...codes(inner(outer, 'UNCL.ZIP', 'UNCL-2.96A')),
  },
};
const target = path.resolve(import.meta.dirname, '../edi/json/directory/edifact-d96a.json.gz');
const json = JSON.stringify(directory);
writeFileSync(target, gzipSync(json, { level: 9 }));
const count = (o: object) => Object.keys(o).length;
const codeCount = Object.values(directory.codes).reduce((n, list) => n + count(list), 0);
console.log(
  `${path.relative(process.cwd(), target)}: ${count(directory.segments)} segments, ${count(directory.composites)} composites, ${count(directory.elements)} elements, ${codeCount} codes of ${count(directory.codes)} elements; ${json.length} characters, gzipped ${gzipSync(json, { level: 9 }).length} bytes`,
);
