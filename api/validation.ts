/** Turning zod failures into the validation details of spec section 7. */
import type { z } from 'zod';
import { ApiError, validationError } from './errors.js';

/** One message per property, keyed by its JSON name; `_form` when no single property is to blame. */
export function detailsFromZod(error: z.ZodError, unknownKey = 'Unknown property'): Record<string, string> {
  const details: Record<string, string> = {};
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) details[key] ??= unknownKey;
      continue;
    }
    const key = issue.path.length > 0 ? String(issue.path[0]) : '_form';
    details[key] ??= issue.message;
  }
  return details;
}

export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  unknownKey?: string,
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw validationError(detailsFromZod(result.error, unknownKey));
  return result.data;
}

/** Bodies must be JSON objects; anything else is refused before property validation. */
export function requireObjectBody(body: unknown): Record<string, unknown> {
  if (body === undefined) {
    throw new ApiError('INVALID_INPUT', 'Invalid request body', { body: 'A JSON object is required' });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    const got = body === null ? 'null' : Array.isArray(body) ? 'a list' : `a ${typeof body}`;
    throw new ApiError('INVALID_INPUT', 'Invalid request body', {
      body: `Expected a JSON object, got ${got}`,
    });
  }
  return body as Record<string, unknown>;
}
