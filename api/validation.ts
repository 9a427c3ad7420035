/** Turning zod failures into the validation details of docs/api/conventions.md#errors. */
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
      // Inside a property (an object's own keys), the property is what the person finds in the form.
      if (issue.path.length > 0)
        putDetail(details, String(issue.path[0]), `${unknownKey}: ${issue.keys.join(', ')}`);
      else for (const key of issue.keys) putDetail(details, key, unknownKey);
      continue;
    }
    putDetail(details, issue.path.length > 0 ? String(issue.path[0]) : '_form', issue.message);
  }
  return details;
}

/**
 * The properties a body gets wrong, and the part it gets right, so rules over several
 * properties can run on that part and every rejected property is named in one answer
 * (docs/api/conventions.md#errors), not only once the others' types pass. `valid` holds every property that passed,
 * with defaults applied (a refused property with a default takes it); a refused property
 * without one is absent, even a required one. `complete` is `valid` when no required property
 * was refused, else null: rules over the whole record can run on it.
 */
export function fieldProblems<S extends z.ZodObject>(
  schema: S,
  body: Record<string, unknown>,
): { problems: Record<string, string>; valid: Partial<z.output<S>>; complete: z.output<S> | null } {
  const whole = schema.safeParse(body);
  if (whole.success) return { problems: {}, valid: whole.data, complete: whole.data };
  const problems = detailsFromZod(whole.error);
  const rest = Object.fromEntries(Object.entries(body).filter(([k]) => !Object.hasOwn(problems, k)));
  // Refused properties that cannot be left out (no default, not optional) become optional.
  const required = Object.keys(problems).filter(
    (k) => Object.hasOwn(schema.shape, k) && !(schema.shape[k] as z.ZodType).safeParse(undefined).success,
  );
  const lenient =
    required.length > 0
      ? schema.partial(Object.fromEntries(required.map((k) => [k, true])) as never)
      : schema;
  const part = lenient.safeParse(rest);
  const valid = part.success ? (part.data as Partial<z.output<S>>) : {};
  return { problems, valid, complete: part.success && required.length === 0 ? (valid as z.output<S>) : null };
}

/**
 * A request body that must be a JSON object, read by `fieldProblems`: the part that passed and
 * the problems, in the order the services that run their rules on the valid part take them.
 */
export function bodyInParts<S extends z.ZodObject>(
  schema: S,
  body: unknown,
): [valid: Partial<z.output<S>>, problems: Record<string, string>] {
  const { problems, valid } = fieldProblems(schema, requireObjectBody(body));
  return [valid, problems];
}

/** Throws the one 400 naming every problem, when there is any. */
export function throwProblems(...sets: (Record<string, string> | undefined)[]): void {
  const all: Record<string, string> = {};
  for (const set of sets) for (const [k, v] of Object.entries(set ?? {})) putDetail(all, k, v);
  if (Object.keys(all).length > 0) throw validationError(all);
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

/**
 * Loads the record a PUT names. When the body was found wrong already, a record that does not
 * exist answers those problems (400) rather than 404, as every route whose body the router
 * checks does: what is wrong with the request is said before what is missing on the server.
 */
export async function loadForUpdate<T>(problems: Record<string, string>, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'NOT_FOUND') throwProblems(problems);
    throw error;
  }
}
