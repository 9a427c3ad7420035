/**
 * The UN/EDIFACT directory D.96A for annotations: every segment of the directory (127), its
 * composites and data elements with their names, and the names of the code values of its code
 * lists (UNCL), read from edifact-d96a.json.gz, which scripts/edifact-directory.ts builds from
 * UNECE's distribution (README.md says where it came from and under which terms). The service
 * segments of ISO 9735 and a few code values from outside the directory are hand-made
 * (service-segments.ts). A segment in neither gets position names only, as an X12 segment does.
 *
 * The file is read on first use, not at start: most processes never annotate EDIFACT.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { serviceCodes, serviceSegments } from './service-segments.js';

export interface DirectoryElement {
  id: string;
  name: string;
  components?: { id: string; name: string }[];
}

export interface DirectorySegment {
  name: string;
  elements: DirectoryElement[];
}

/** The shape of edifact-d96a.json.gz (scripts/edifact-directory.ts). */
interface DirectoryFile {
  directory: string;
  /** tag → [name, ids of its elements and composites in order] */
  segments: Record<string, [string, string[]]>;
  /** id → [name, ids of its components in order] */
  composites: Record<string, [string, string[]]>;
  /** id → name */
  elements: Record<string, string>;
  /** data element id → code value → name */
  codes: Record<string, Record<string, string>>;
}

let file: DirectoryFile | null = null;

function directory(): DirectoryFile {
  file ??= JSON.parse(
    gunzipSync(readFileSync(new URL('./edifact-d96a.json.gz', import.meta.url))).toString('utf8'),
  ) as DirectoryFile;
  return file;
}

const own = <T>(table: Record<string, T>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

const named = (text: string) => {
  const space = text.indexOf(' ');
  return { id: text.slice(0, space), name: text.slice(space + 1) };
};

/** A hand-made element: `id name`, or a composite `id name: id name | id name …`. */
function parse(spec: string): DirectoryElement {
  const colon = spec.indexOf(': ');
  if (colon < 0) return named(spec);
  return {
    ...named(spec.slice(0, colon)),
    components: spec
      .slice(colon + 2)
      .split(' | ')
      .map(named),
  };
}

function fromDirectory(tag: string): DirectorySegment | undefined {
  const d = directory();
  const entry = own(d.segments, tag);
  if (!entry) return undefined;
  const element = (id: string) => ({ id, name: own(d.elements, id) ?? '' });
  return {
    name: entry[0],
    elements: entry[1].map((id) => {
      const composite = own(d.composites, id);
      if (!composite) return element(id);
      return { id, name: composite[0], components: composite[1].map(element) };
    }),
  };
}

const segments = new Map<string, DirectorySegment | null>();

/** The directory's entry for a segment tag, or undefined when it has none. */
export function edifactSegment(tag: string): DirectorySegment | undefined {
  let found = segments.get(tag);
  if (found === undefined) {
    const service = own(serviceSegments, tag);
    found = service ? { name: service[0], elements: service[1].map(parse) } : (fromDirectory(tag) ?? null);
    segments.set(tag, found);
  }
  return found ?? undefined;
}

/** The meaning of a code value of a data element, or undefined. */
export function edifactCode(element: string, value: string): string | undefined {
  const list = own(serviceCodes, element) ?? own(directory().codes, element);
  return list ? own(list, value) : undefined;
}
