/**
 * Annotations of a segment for people reading the JSON form: each element's position name
 * (X12 `BEG03`, a component `SV101-02`; EDIFACT `BGM01` and, where the directory table knows
 * the composite, `C002.1001`), and for EDIFACT the directory's segment and element names and
 * the meanings of coded values. X12's dictionaries are licensed, so X12 gets positions only.
 * Annotations are ignored when the form is written back as EDI.
 */
import { edifactCode, edifactSegment, type DirectorySegment } from './directory/edifact-d96a.js';
import type { EdiJsonStandard, ElementValue, SegmentJson } from './form.js';
import type { PlainSegmentEvent } from './plain-segment.js';

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** Position names of an element's components: the widest occurrence decides how many. */
function componentCount(value: ElementValue): number {
  if (typeof value === 'string') return 0;
  if (Array.isArray(value[0])) return Math.max(...(value as string[][]).map((o) => o.length));
  return value.length;
}

/** The value of each component (the first occurrence of a repeated element), for code lookups. */
function componentValues(value: ElementValue): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value[0])) return value[0] as string[];
  return value as string[];
}

function annotateSegment(s: SegmentJson, standard: EdiJsonStandard): SegmentJson {
  const entry = standard === 'edifact' ? edifactSegment(s.tag) : undefined;
  const positions: (string | string[])[] = [];
  const names: (string | string[] | null)[] = [];
  const meanings: Record<string, string> = {};
  s.elements.forEach((value, i) => {
    const base = `${s.tag}${two(i + 1)}`;
    const known = entry?.elements[i];
    // A repeated simple element is named like a simple one.
    const count = componentCount(value) <= 1 && Array.isArray(value[0]) ? 0 : componentCount(value);
    if (count === 0 && !known?.components) {
      positions.push(base);
      if (entry) names.push(known?.name ?? null);
      if (known) addMeaning(meanings, base, known.id, componentValues(value)[0]!);
      return;
    }
    const parts: string[] = [];
    const partNames: string[] = [];
    const values = componentValues(value);
    const n = Math.max(count, 1);
    for (let c = 0; c < n; c++) {
      const component = known?.components?.[c];
      const position = component ? `${known!.id}.${component.id}` : `${base}-${two(c + 1)}`;
      parts.push(position);
      partNames.push(component?.name ?? '');
      if (component && values[c] !== undefined) addMeaning(meanings, position, component.id, values[c]!);
    }
    positions.push(count === 0 ? parts[0]! : parts);
    if (entry) names.push(known ? (count === 0 ? `${known.name}: ${partNames[0]}` : partNames) : null);
  });
  return withAnnotations(s, entry, positions, names, meanings);
}

function addMeaning(
  meanings: Record<string, string>,
  position: string,
  element: string,
  value: string,
): void {
  const meaning = edifactCode(element, value);
  if (meaning) meanings[position] = meaning;
}

function withAnnotations(
  s: SegmentJson,
  entry: DirectorySegment | undefined,
  positions: (string | string[])[],
  names: (string | string[] | null)[],
  meanings: Record<string, string>,
): SegmentJson {
  const out: SegmentJson = { tag: s.tag, elements: s.elements };
  if (entry) out.name = entry.name;
  out.positions = positions;
  if (entry) out.names = names;
  if (Object.keys(meanings).length > 0) out.meanings = meanings;
  return out;
}

/**
 * The annotations of a segment of `count` simple elements, as JSON text without the meanings
 * (which depend on the values), and where the values with meanings are. They depend only on the
 * tag and the count, so they are worked out once per kind of segment, not once per segment.
 */
interface PlainAnnotation {
  text: string;
  /** The element's index, its position as a JSON key with its colon, and its data element. */
  coded: { index: number; key: string; element: string }[];
}

const maxPlainAnnotations = 10_000;
const maxPlainCount = 256;
/** By tag, then by element count: no key string made per segment. */
const plainAnnotations = {
  x12: new Map<string, PlainAnnotation[]>(),
  edifact: new Map<string, PlainAnnotation[]>(),
};

function plainAnnotation(tag: string, count: number, standard: EdiJsonStandard): PlainAnnotation {
  const byCount = plainAnnotations[standard].get(tag);
  let found = byCount?.[count];
  if (found) return found;
  const blank: SegmentJson = { tag, elements: new Array<string>(count).fill('') };
  const { name, positions, names } = annotateSegment(blank, standard);
  const text = JSON.stringify({ name, positions, names }).slice(1, -1);
  const entry = standard === 'edifact' ? edifactSegment(tag) : undefined;
  const coded: PlainAnnotation['coded'] = [];
  positions!.forEach((position, index) => {
    const known = entry?.elements[index];
    const element = known?.components?.[0]?.id ?? known?.id;
    if (element) coded.push({ index, key: `${JSON.stringify(position)}:`, element });
  });
  found = { text: text === '' ? '' : `,${text}`, coded };
  // Kinds of segment are few in real interchanges; a hostile one could make them many.
  if (plainAnnotations[standard].size >= maxPlainAnnotations) plainAnnotations[standard].clear();
  const list = plainAnnotations[standard].get(tag) ?? [];
  // A sparse array for a hostile count would be a dictionary, not a huge array; no entry is kept then.
  if (count <= maxPlainCount) list[count] = found;
  plainAnnotations[standard].set(tag, list);
  return found;
}

/**
 * The annotations of a segment whose `count` elements are all simple values, as JSON text from
 * the comma after its elements to before its closing brace: what JSON.stringify(annotate(s))
 * writes there. `values` gives the elements when a code meaning needs them.
 */
function annotatePlain(
  tag: string,
  count: number,
  values: PlainSegmentEvent | readonly string[],
  standard: EdiJsonStandard,
): string {
  const { text, coded } = plainAnnotation(tag, count, standard);
  if (coded.length === 0) return text;
  const list = (Array.isArray(values) ? values : (values as PlainSegmentEvent).segment.elements) as string[];
  let meanings = '';
  for (const { index, key, element } of coded) {
    const meaning = edifactCode(element, list[index]!);
    if (meaning) meanings += `${meanings === '' ? ',"meanings":{' : ','}${key}${JSON.stringify(meaning)}`;
  }
  return meanings === '' ? text : `${text}${meanings}}`;
}

/** annotatePlain's text when it is the same whatever the values: no element of the segment has meanings. */
function annotateFixed(tag: string, count: number, standard: EdiJsonStandard): string | null {
  const { text, coded } = plainAnnotation(tag, count, standard);
  return coded.length === 0 ? text : null;
}

/**
 * Annotates a segment; `plain` writes the annotations of one of simple values straight as text,
 * and `fixed` says when they are the same for every segment of its tag and element count.
 */
export const annotate = Object.assign(annotateSegment, { plain: annotatePlain, fixed: annotateFixed });
