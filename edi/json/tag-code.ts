/**
 * A number for a segment tag of both standards (two or three upper case letters or digits, as
 * elements.ts checks), each character 1 to 36 in base 37, or -1 for anything else. The readers
 * look a tag up by it, so a segment's tag is checked and found without a string sliced, matched
 * against a pattern or hashed per segment.
 */
export function tagCode(text: string, from: number, to: number): number {
  if (to - from < 2 || to - from > 3) return -1;
  let code = 0;
  for (let k = from; k < to; k++) {
    const c = text.charCodeAt(k);
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x2f : c >= 0x41 && c <= 0x5a ? c - 0x36 : -1;
    if (digit < 0) return -1;
    code = code * 37 + digit;
  }
  return code;
}

/** tagCode of a tag in bytes (ASCII), as the JSON reader reads it. */
export function tagCodeOfBytes(bytes: Uint8Array, from: number, to: number): number {
  if (to - from < 2 || to - from > 3) return -1;
  let code = 0;
  for (let k = from; k < to; k++) {
    const c = bytes[k]!;
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x2f : c >= 0x41 && c <= 0x5a ? c - 0x36 : -1;
    if (digit < 0) return -1;
    code = code * 37 + digit;
  }
  return code;
}
