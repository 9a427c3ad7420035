/** Parsers for command-line option values. */
import { InvalidArgumentError } from 'commander';

export function wholeNumber(text: string): number {
  if (!/^[0-9]+$/.test(text)) throw new InvalidArgumentError('Must be a whole number.');
  return Number(text);
}

/** A command used the wrong way (exit code 2), as opposed to a failure while doing it (1). */
export class UsageError extends Error {}

/** A failure already logged (as JSON, by `serve`): exit 1 without printing it again. */
export class ReportedError extends Error {}
