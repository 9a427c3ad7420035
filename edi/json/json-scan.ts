/**
 * Finding where a JSON value ends in text that may not hold all of it yet, without parsing it:
 * the JSON form's streaming reader (json-reader.ts, which reads UTF-8 bytes) and the API's
 * spooled-body walker (api/resources/messages/json-walk.ts, which reads decoded text) both skip
 * over values this way. Only ASCII characters matter here, which are the same in either.
 */

/** Decoded text, or UTF-8 bytes. */
export type JsonText = string | Uint8Array;

const code = (b: JsonText, j: number): number => (typeof b === 'string' ? b.charCodeAt(j) : b[j]!);

/** Index of the closing quote of the string starting at `i`, or -1 when the text ends first. */
export function stringEnd(b: JsonText, i: number): number {
  for (let j = i + 1; j < b.length; j++) {
    const c = code(b, j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j;
  }
  return -1;
}

/**
 * Index just after the object or array starting at `i`; -1 when a string in it is not closed in
 * the text, `unclosed` when the text ends before the value does.
 */
export function containerEnd(b: JsonText, i: number, unclosed: number): number {
  let depth = 0;
  for (let j = i; j < b.length; j++) {
    const x = code(b, j);
    if (x === 0x22) {
      j = stringEnd(b, j);
      if (j < 0) return -1;
    } else if (x === 0x7b || x === 0x5b) depth++;
    else if (x === 0x7d || x === 0x5d) {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return unclosed;
}
