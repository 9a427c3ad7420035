/** Asserts that unpacking fails with a DispositionError carrying `modifier`. */
import type { Test } from 'tap';
import { unpackIncoming, type UnpackOptions } from '../../src/actors/as2/unpack.js';
import { DispositionError } from '../../src/actors/as2/vocabulary/disposition-error.js';
import type { ErrorModifier } from '../../src/actors/as2/vocabulary/dispositions.js';

export function expectRefusal(
  t: Test,
  label: string,
  modifier: ErrorModifier,
  body: Buffer,
  headers: Record<string, string>,
  options: UnpackOptions,
): void {
  try {
    unpackIncoming(body, headers, options);
    t.fail(`${label}: accepted`);
  } catch (error) {
    t.ok(error instanceof DispositionError, `${label}: a DispositionError`);
    t.equal((error as DispositionError).modifier, modifier, `${label}: ${modifier}`);
  }
}
