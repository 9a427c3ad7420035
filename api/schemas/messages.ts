/**
 * How zod's failures read to an operator. Installed once with `installErrorMessages()` so the
 * API and the web UI forms say the same thing for the same mistake.
 */
import { z } from 'zod';

const typeNames: Record<string, string> = {
  string: 'a text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
};

export function installErrorMessages(): void {
  z.config({
    customError: (issue) => {
      switch (issue.code) {
        case 'invalid_type':
          if (issue.input === undefined) return 'Required';
          return `Must be ${typeNames[issue.expected] ?? issue.expected}`;
        case 'invalid_value':
          return `Must be one of: ${issue.values.map((v) => String(v)).join(', ')}`;
        case 'too_small':
          if (issue.origin === 'string') {
            return issue.minimum === 1 ? 'Must not be empty' : `Must be at least ${issue.minimum} characters`;
          }
          if (issue.origin === 'array') return `Must have at least ${issue.minimum} entries`;
          return `Must be at least ${issue.minimum}`;
        case 'too_big':
          if (issue.origin === 'string') return `Must be at most ${issue.maximum} characters`;
          if (issue.origin === 'array') return `Must have at most ${issue.maximum} entries`;
          return `Must be at most ${issue.maximum}`;
        case 'unrecognized_keys':
          return 'Unknown property';
        default:
          return undefined;
      }
    },
  });
}
