/** `from`/`to` filters that take an RFC 3339 time or a date (docs/api/conventions.md#lists). */
import { z } from 'zod';

const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/;
const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function parseDate(text: string): Date | undefined {
  const m = dateOnly.exec(text);
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  // Reject dates that roll over, such as 2026-02-31.
  return d.toISOString().startsWith(text) ? d : undefined;
}

/** A time filter bound; `to` given as a date means the end of that whole day (UTC). */
export const timeBound = (edge: 'from' | 'to') =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const day = parseDate(text);
      if (day) return edge === 'to' ? new Date(day.getTime() + 24 * 60 * 60 * 1000) : day;
      const time = rfc3339.test(text) ? new Date(text) : undefined;
      if (!time || Number.isNaN(time.getTime())) {
        ctx.addIssue({ code: 'custom', message: 'Must be an RFC 3339 time or a date (YYYY-MM-DD)' });
        return z.NEVER;
      }
      return time;
    });
