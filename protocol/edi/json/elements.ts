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

/** Writes one segment, terminator included; a value that holds a separator X12 cannot release is refused. */
export function writeSegment(s: SegmentJson, d: DelimitersJson, position: number, flat = false): string {
  if (typeof s !== 'object' || s === null || typeof s.tag !== 'string' || !Array.isArray(s.elements))
    throw new EdiJsonError(`segment ${position}: a segment needs a tag and an elements array`, {
      segment: position,
    });
  checkTag(s.tag, position);
  let out = s.tag;
  const escape = escaper(d, s.tag, position);
  for (let i = 0; i < s.elements.length; i++) {
    const value = s.elements[i];
    out += d.element;
    if (typeof value === 'string') out += flat ? value : escape(value, i + 1);
    else if (Array.isArray(value) && !flat) out += writeComposite(value, d, escape, s.tag, position, i + 1);
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
  escape: (v: string, element: number) => string,
  tag: string,
  position: number,
  element: number,
): string {
  if (value.length === 0) throw badValue(tag, position, element);
  if (Array.isArray(value[0])) {
    if (d.repetition === '')
      throw new EdiJsonError(
        `segment ${position} (${tag}), element ${element}: the element repeats, but the interchange has no repetition separator`,
        { segment: position, tag, element },
      );
    return value
      .map((occurrence) => {
        if (!Array.isArray(occurrence) || occurrence.length === 0) throw badValue(tag, position, element);
        return occurrence.map((c) => escapeComponent(c, escape, tag, position, element)).join(d.component);
      })
      .join(d.repetition);
  }
  return value.map((c) => escapeComponent(c, escape, tag, position, element)).join(d.component);
}

function escapeComponent(
  c: unknown,
  escape: (v: string, element: number) => string,
  tag: string,
  position: number,
  element: number,
): string {
  if (typeof c !== 'string') throw badValue(tag, position, element);
  return escape(c, element);
}

/** Puts release characters in (EDIFACT), or refuses a separator in data (X12 has no release). */
function escaper(d: DelimitersJson, tag: string, position: number): (v: string, element: number) => string {
  const specials = [d.element, d.component, d.repetition, d.segment, d.release].filter((c) => c !== '');
  return (v, element) => {
    let found = false;
    for (const c of specials) if (v.includes(c)) found = true;
    if (!found) return v;
    if (d.release === '') {
      const c = specials.find((s) => v.includes(s))!;
      throw new EdiJsonError(
        `segment ${position} (${tag}), element ${element}: the value holds the separator ${JSON.stringify(c)}, which X12 cannot carry in data`,
        { segment: position, tag, element },
      );
    }
    let out = '';
    for (const c of v) out += specials.includes(c) ? d.release + c : c;
    return out;
  };
}
