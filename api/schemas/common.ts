/** Building blocks shared by the resource schemas. Imports nothing server-side. */
import { z } from 'zod';

/** Names of records that URLs and routes refer to (docs/api/parties.md, docs/api/plugin-configs.md, docs/api/oidc-providers.md, docs/api/service-accounts.md). */
export const recordName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9_-]+$/, 'Use only lower case letters, digits, _ or -');

/** Free text without control characters (line breaks and tabs excepted where allowed). */
export const singleLineText = (max: number) =>
  z
    .string()
    .max(max)
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'Must not contain control characters');

export const multiLineText = (max: number) =>
  z
    .string()
    .max(max)
    // eslint-disable-next-line no-control-regex
    .regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, 'Must not contain control characters');

export const timestamp = z.string().describe('RFC 3339 timestamp');
export const nullableTimestamp = z.string().nullable().describe('RFC 3339 timestamp, or null for never');

/**
 * How a path or query parameter read from text is documented: the value it stands for (the
 * OpenAPI document uses this in place of the text schema; api/openapi/document.ts).
 */
export const parameterKey = 'x-parameter';
const asParameter = (schema: Record<string, unknown>) => ({ [parameterKey]: schema });

/** Record ids in paths: positive 32-bit integers. */
export const idParam = z
  .string()
  .regex(/^[0-9]+$/, 'Must be a whole number')
  .transform(Number)
  .refine((n) => n >= 1 && n <= 2147483647, 'Must be a whole number from 1 to 2147483647')
  .meta(asParameter({ type: 'integer', minimum: 1, maximum: 2147483647 }));

export const idParams = z.object({ id: idParam });

/** Paging of every list (docs/api/conventions.md#lists). */
export const maxLimit = 500;
const wholeNumber = /^[0-9]+$/;
export const pagingQuery = (defaultLimit: number) => ({
  limit: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || (wholeNumber.test(v) && Number(v) >= 1),
      'Must be a whole number of at least 1',
    )
    .transform((v) => (v === undefined ? defaultLimit : Math.min(Number(v), maxLimit)))
    .meta(
      asParameter({
        type: 'integer',
        minimum: 1,
        maximum: maxLimit,
        default: defaultLimit,
        description: `Page size; a larger value is read as ${maxLimit}`,
      }),
    ),
  offset: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || (wholeNumber.test(v) && Number.isSafeInteger(Number(v))),
      'Must be a whole number of at least 0',
    )
    .transform((v) => (v === undefined ? 0 : Number(v)))
    .meta(asParameter({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 })),
});

export interface Page<T> {
  total: number;
  limit: number;
  offset: number;
  items: T[];
}

/** The list answer of docs/api/conventions.md#lists: the page under a plural key, plus total, limit, offset. */
export function listAnswer<T>(key: string, page: Page<T>): Record<string, unknown> {
  return { [key]: page.items, total: page.total, limit: page.limit, offset: page.offset };
}

/** A list envelope's data schema for the OpenAPI document. */
export function listSchema<K extends string, I extends z.ZodType>(key: K, item: I) {
  // Typed by its key, so a caller of the route (the web UI) reads `answer.messages` as records.
  const rows = { [key]: z.array(item) } as { [P in K]: z.ZodArray<I> };
  return z.object({
    ...rows,
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  });
}

/** Escapes a text for use inside an ILIKE pattern. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A field clients may send back as they read it; the server ignores it. */
export const readOnly = () => z.unknown().optional().describe('Read only; ignored when sent');

/**
 * A timestamp as PostgreSQL writes it in a UTC session ("2026-11-24 03:53:40.123456+00"), which
 * rows read past the ORM carry as text.
 */
const postgresUtc = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * Dates as the API shows them (RFC 3339, UTC, milliseconds). A row read past the ORM gives its
 * timestamps as PostgreSQL's text, which `new Date` parses slowly (not ISO 8601): on a list of 50
 * it was a tenth of the API's CPU. That text is rewritten instead, to what `toISOString` gives
 * for it (fractions beyond milliseconds cut, as `Date` cuts them); anything else goes through
 * `Date`.
 */
export function iso(value: Date): string;
export function iso(value: Date | null | undefined): string | null;
export function iso(value: Date | null | undefined): string | null {
  if (!value) return null;
  if (typeof value === 'string') {
    const parts = postgresUtc.exec(value);
    if (parts) return `${parts[1]}T${parts[2]}.${(parts[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  }
  return new Date(value).toISOString();
}

/** One step of a connection check (an AS2 partner's, an SFTP server's): how it went, and in how long. */
export const CheckStepResult = z.object({
  status: z.enum(['ok', 'failed', 'skipped']),
  detail: z.string(),
  duration_ms: z.number().int(),
});
