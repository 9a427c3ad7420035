/** Turning zod failures into the validation details of spec section 7. */
import type { z } from 'zod';
import { ApiError, validationError } from './errors.js';

/**
 * Sets a detail once, as an own property even for `__proto__` or `constructor` (a plain
 * assignment would change the object's prototype, or find the inherited one and skip it).
 */
export function putDetail(details: Record<string, string>, key: string, text: string): void {
  if (Object.prototype.hasOwnProperty.call(details, key)) return;
  Object.defineProperty(details, key, { value: text, enumerable: true, writable: true, configurable: true });
}

/** One message per property, keyed by its JSON name; `_form` when no single property is to blame. */
export function detailsFromZod(error: z.ZodError, unknownKey = 'Unknown property'): Record<string, string> {
  const details: Record<string, string> = {};
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) putDetail(details, key, unknownKey);
      continue;
    }
    putDetail(details, issue.path.length > 0 ? String(issue.path[0]) : '_form', issue.message);
  }
  return details;
}

/**
 * The properties a body gets wrong, and the part it gets right, so rules over several
 * properties can run on that part and every rejected property is named in one answer
 * (spec 7), not only once the others' types pass.
 */
export function fieldProblems<S extends z.ZodObject>(
  schema: S,
  body: Record<string, unknown>,
): { problems: Record<string, string>; valid: Partial<z.output<S>> } {
  const whole = schema.safeParse(body);
  if (whole.success) return { problems: {}, valid: whole.data };
  const problems = detailsFromZod(whole.error);
  const rest = Object.fromEntries(Object.entries(body).filter(([k]) => !Object.hasOwn(problems, k)));
  const part = schema.safeParse(rest);
  return { problems, valid: part.success ? part.data : {} };
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
