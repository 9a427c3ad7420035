/**
 * One segment's text to its tag and element values, and back. Reading takes EDIFACT release
 * characters out; writing puts one before every character that would otherwise separate. Only
 * that canonical use of the release character can be written back the same, so a release before
 * a character that needs none is refused rather than silently dropped.
 */
import { EdiJsonError, type DelimitersJson, type ElementValue, type SegmentJson } from './form.js';

/** Tags of both standards: two or three upper case letters or digits. */
const tagForm = /^[A-Z0-9]{2,3}$/;

export function checkTag(tag: string, position: number): void {
  if (!tagForm.test(tag))
    throw new EdiJsonError(
      `segment ${position}: the tag ${JSON.stringify(tag.slice(0, 20))} is not 2 or 3 upper case letters or digits`,
      { segment: position },
    );
}

/**
 * Splits a segment (without its terminator). `flat`: elements are not split into components
 * or repetitions (the ISA, whose last element is the component separator itself).
 */
export function readSegment(raw: string, d: DelimitersJson, position: number, flat = false): SegmentJson {
  if (d.release !== '' && raw.includes(d.release)) return readReleased(raw, d, position);
  const parts = raw.split(d.element);
  const tag = parts[0]!;
  checkTag(tag, position);
  const elements: ElementValue[] = new Array<ElementValue>(parts.length - 1);
  for (let i = 1; i < parts.length; i++) {
    const text = parts[i]!;
    elements[i - 1] = flat ? text : valueOf(text, d);
  }
  return { tag, elements };
}

function valueOf(text: string, d: DelimitersJson): ElementValue {
  if (d.repetition !== '' && text.includes(d.repetition))
    return text.split(d.repetition).map((o) => o.split(d.component));
  if (text.includes(d.component)) return text.split(d.component);
  return text;
}

/** The slow path: a segment with release characters, read one character at a time. */
function readReleased(raw: string, d: DelimitersJson, position: number): SegmentJson {
  const special = d.element + d.component + d.repetition + d.segment + d.release;
  const elements: string[][][] = [];
  let occurrences: string[][] = [];
  let components: string[] = [];
  let current = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === d.release) {
      const next = raw[i + 1];
      if (next === undefined || !special.includes(next))
        throw new EdiJsonError(
          `segment ${position}, element ${elements.length}: the release character ${d.release} comes before ${next === undefined ? 'nothing' : JSON.stringify(next)}, which needs no release, so the bytes could not be written back the same`,
          { segment: position, element: elements.length },
        );
      current += next;
      i++;
    } else if (c === d.element) {
      components.push(current);
      occurrences.push(components);
      elements.push(occurrences);
      occurrences = [];
      components = [];
      current = '';
    } else if (c === d.component) {
      components.push(current);
      current = '';
    } else if (d.repetition !== '' && c === d.repetition) {
      components.push(current);
      occurrences.push(components);
      components = [];
      current = '';
    } else current += c;
  }
  components.push(current);
  occurrences.push(components);
  elements.push(occurrences);
  const tagParts = elements.shift()!;
  if (tagParts.length > 1 || tagParts[0]!.length > 1)
    throw new EdiJsonError(`segment ${position}: the tag holds a separator`, { segment: position });
  const tag = tagParts[0]![0]!;
  checkTag(tag, position);
  return {
    tag,
    elements: elements.map((o) => (o.length > 1 ? o : o[0]!.length > 1 ? o[0]! : o[0]![0]!)),
  };
}

/** The separators of an interchange and a pattern that finds any of them, made once per delimiters object. */
interface Specials {
  chars: string[];
  any: RegExp;
}
const specialsOf = new WeakMap<DelimitersJson, Specials>();

function specials(d: DelimitersJson): Specials {
  let found = specialsOf.get(d);
  if (!found) {
    const chars = [d.element, d.component, d.repetition, d.segment, d.release].filter((c) => c !== '');
    // Only the characters special inside a class are escaped: an escaped d would mean any digit.
    found = { chars, any: new RegExp(`[${chars.map((c) => c.replace(/[\\\][^-]/g, '\\$&')).join('')}]`) };
    specialsOf.set(d, found);
  }
  return found;
}

interface Where {
  tag: string;
  position: number;
}

/** Writes one segment, terminator included; a value that holds a separator X12 cannot release is refused. */
export function writeSegment(s: SegmentJson, d: DelimitersJson, position: number, flat = false): string {
  if (typeof s !== 'object' || s === null || typeof s.tag !== 'string' || !Array.isArray(s.elements))
    throw new EdiJsonError(`segment ${position}: a segment needs a tag and an elements array`, {
      segment: position,
    });
  checkTag(s.tag, position);
  let out = s.tag;
  const where: Where = { tag: s.tag, position };
  const sp = specials(d);
  for (let i = 0; i < s.elements.length; i++) {
    const value = s.elements[i];
    out += d.element;
    if (typeof value === 'string') out += flat ? value : escape(value, d, sp, where, i + 1);
    else if (Array.isArray(value) && !flat) out += writeComposite(value, d, sp, where, i + 1);
    else throw badValue(s.tag, position, i + 1);
  }
  return out + d.segment;
}

const badValue = (tag: string, position: number, element: number) =>
  new EdiJsonError(
    `segment ${position} (${tag}), element ${element}: a value must be a string, an array of strings (components) or an array of arrays (repetitions)`,
    { segment: position, tag, element },
  );

function writeComposite(
  value: unknown[],
  d: DelimitersJson,
  sp: Specials,
  where: Where,
  element: number,
): string {
  const { tag, position } = where;
  if (value.length === 0) throw badValue(tag, position, element);
  if (Array.isArray(value[0])) {
    if (d.repetition === '')
      throw new EdiJsonError(
        `segment ${position} (${tag}), element ${element}: the element repeats, but the interchange has no repetition separator`,
        { segment: position, tag, element },
      );
    let out = '';
    for (let o = 0; o < value.length; o++) {
      const occurrence = value[o];
      if (!Array.isArray(occurrence) || occurrence.length === 0) throw badValue(tag, position, element);
      if (o > 0) out += d.repetition;
      out += components(occurrence, d, sp, where, element);
    }
    return out;
  }
  return components(value, d, sp, where, element);
}

function components(list: unknown[], d: DelimitersJson, sp: Specials, where: Where, element: number): string {
  let out = '';
  for (let c = 0; c < list.length; c++) {
    const v = list[c];
    if (typeof v !== 'string') throw badValue(where.tag, where.position, element);
    if (c > 0) out += d.component;
    out += escape(v, d, sp, where, element);
  }
  return out;
}

/** Puts release characters in (EDIFACT), or refuses a separator in data (X12 has no release). */
function escape(v: string, d: DelimitersJson, sp: Specials, where: Where, element: number): string {
  if (!sp.any.test(v)) return v;
  if (d.release === '') {
    const c = sp.chars.find((s) => v.includes(s))!;
    throw new EdiJsonError(
      `segment ${where.position} (${where.tag}), element ${element}: the value holds the separator ${JSON.stringify(c)}, which X12 cannot carry in data`,
      { segment: where.position, tag: where.tag, element },
    );
  }
  let out = '';
  for (const c of v) out += sp.chars.includes(c) ? d.release + c : c;
  return out;
}
