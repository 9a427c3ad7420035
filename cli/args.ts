/** Parsers for command-line option values. */
import { InvalidArgumentError } from 'commander';

export function wholeNumber(text: string): number {
  if (!/^[0-9]+$/.test(text)) throw new InvalidArgumentError('Must be a whole number.');
  return Number(text);
}
