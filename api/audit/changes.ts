/** What changed in a record, as the audit log lists it: secrets are named, never valued. */
import type { AuditChange } from '../../storage/entities/audit-event.js';

type Values = Record<string, unknown>;

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  return JSON.stringify(a, sortedKeys) === JSON.stringify(b, sortedKeys);
}

/**
 * Objects with their keys in one order: a JSON column read back from PostgreSQL (jsonb keeps
 * its own key order) is the same value as the object it was written from.
 */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date)
    return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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
