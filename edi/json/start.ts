/**
 * The properties of a JSON document that say how its interchange is written (standard,
 * delimiters, UNA, line breaks), checked before any segment is: a separator that is a letter,
 * two separators that are the same character or a UNA that contradicts the delimiters would
 * write bytes no reader splits back the same.
 */
import { edifactDelimiters } from '../syntax.js';
import type { StartEvent } from './events.js';
import { EdiJsonError, formName, type DelimitersJson } from './form.js';

const fail = (message: string) => new EdiJsonError(message);
const whiteSpace = /^(?:\uFEFF|\u00EF\u00BB\u00BF|\s)*$/;

export function checkStart(meta: Record<string, unknown>): StartEvent {
  if (meta.format !== undefined && meta.format !== formName)
    throw fail(`format must be ${JSON.stringify(formName)}`);
  const standard = meta.standard;
  if (standard !== 'x12' && standard !== 'edifact') throw fail('standard must be "x12" or "edifact"');
  const d = checkDelimiters(meta.delimiters, standard);
  const una = meta.una ?? null;
  if (una !== null) {
    if (standard === 'x12') throw fail('una: an X12 interchange has none; give null');
    if (typeof una !== 'string' || una.length !== 9 || !una.startsWith('UNA'))
      throw fail("una must be the 9 characters of the service string advice, UNA:+.? ' for example, or null");
    const said = edifactDelimiters(una);
    for (const key of ['segment', 'element', 'component', 'release', 'repetition'] as const)
      if (said[key] !== d[key])
        throw fail(
          `una says the ${key} separator is ${JSON.stringify(said[key])}, delimiters say ${JSON.stringify(d[key])}`,
        );
  }
  const text = (key: string, form: RegExp, what: string): string => {
    const v = meta[key] ?? '';
    if (typeof v !== 'string' || !form.test(v)) throw fail(`${key} must be ${what}`);
    return v;
  };
  return {
    type: 'start',
    standard,
    delimiters: d,
    una: una as string | null,
    leading: text('leading', whiteSpace, 'white space or a byte order mark'),
    line_break: text('line_break', /^[\r\n]{0,2}$/, '"", "\\n", "\\r\\n" or "\\r"'),
  };
}

/** What follows the interchange trailer. */
export function checkTrailing(value: unknown): string {
  const v = value ?? '';
  if (typeof v !== 'string' || !whiteSpace.test(v)) throw fail('trailing must be white space');
  return v;
}

function checkDelimiters(value: unknown, standard: 'x12' | 'edifact'): DelimitersJson {
  if (typeof value !== 'object' || value === null) throw fail('delimiters must be an object');
  const v = value as Record<string, unknown>;
  const one = (key: string, optional: boolean): string => {
    const c = v[key] ?? (optional ? '' : undefined);
    if (typeof c !== 'string' || c.length > 1 || (!optional && c.length === 0))
      throw fail(`delimiters.${key} must be one character${optional ? ' or empty' : ''}`);
    if (/[A-Za-z0-9 ]/.test(c)) throw fail(`delimiters.${key} must not be a letter, digit or space`);
    return c;
  };
  const d: DelimitersJson = {
    segment: one('segment', false),
    element: one('element', false),
    component: one('component', false),
    repetition: one('repetition', true),
    release: one('release', true),
  };
  if (standard === 'x12' && d.release !== '') throw fail('delimiters.release: X12 has no release character');
  const used = Object.values(d).filter((c) => c !== '');
  if (new Set(used).size !== used.length) throw fail('delimiters must be different characters');
  return d;
}
