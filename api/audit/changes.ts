/** What changed in a record, as the audit log lists it: secrets are named, never valued. */
import type { AuditChange } from '../../storage/entities/audit-event.js';

type Values = Record<string, unknown>;

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

function shown(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : (value ?? null);
}

/**
 * Compares two states of a record over the given fields. Either side may be undefined
 * (creation, deletion). Fields in `secrets` produce `{field, secret: true}` when they change.
 */
export function diffChanges(
  before: Values | undefined,
  after: Values | undefined,
  fields: readonly string[],
  secrets: readonly string[] = [],
): AuditChange[] {
  const changes: AuditChange[] = [];
  for (const field of fields) {
    const old = before?.[field];
    const now = after?.[field];
    if (same(old, now)) continue;
    if (secrets.includes(field)) {
      changes.push({ field, secret: true });
      continue;
    }
    const change: AuditChange = { field };
    if (before) change.old = shown(old);
    if (after) change.new = shown(now);
    changes.push(change);
  }
  return changes;
}
