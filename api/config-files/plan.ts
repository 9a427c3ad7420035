/**
 * What applying a file changes, field by field: the install as a file before and after the
 * apply (run in a transaction that a plan rolls back), compared record by record by name.
 * Secrets are compared by digest and shown only as `secret: true`, never by value.
 */
import type { InstallState } from './read-install.js';

export interface FieldChange {
  field: string;
  old?: unknown;
  new?: unknown;
  secret?: true;
}

export interface PlannedChange {
  action: 'create' | 'update' | 'delete';
  section: 'settings' | 'certificates' | 'organizations' | 'partners' | 'instances' | 'routes';
  name: string;
  changes: FieldChange[];
}

/** The sections of records, each record named; settings are one record of their own. */
export const sections = ['certificates', 'organizations', 'partners', 'instances', 'routes'] as const;

/** Whether a field of the file holds a secret reference: its value is compared by digest instead. */
function secretField(section: string, field: string): boolean {
  if (section === 'instances') return field.startsWith('secrets.');
  return section === 'partners' && (field === 'as2.http_basic_password' || field === 'as2.http_headers');
}

function flatten(value: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) out[prefix] = value;
  return out;
}

function fieldChanges(
  section: string,
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
  secrets: { before: Map<string, string>; after: Map<string, string>; prefix: string },
): FieldChange[] {
  const old = flatten(before ?? {});
  const now = flatten(after ?? {});
  const changes: FieldChange[] = [];
  for (const field of [...new Set([...Object.keys(old), ...Object.keys(now)])].sort()) {
    if (secretField(section, field) || field === 'name') continue;
    if (JSON.stringify(old[field]) === JSON.stringify(now[field])) continue;
    const change: FieldChange = { field };
    if (before && field in old) change.old = old[field];
    if (after && field in now) change.new = now[field];
    changes.push(change);
  }
  const secretKeys = [...secrets.before.keys(), ...secrets.after.keys()].filter((k) =>
    k.startsWith(secrets.prefix),
  );
  for (const key of [...new Set(secretKeys)].sort()) {
    if (secrets.before.get(key) !== secrets.after.get(key))
      changes.push({ field: key.slice(secrets.prefix.length), secret: true });
  }
  return changes;
}

export function planChanges(before: InstallState, after: InstallState): PlannedChange[] {
  const plan: PlannedChange[] = [];
  const settings = fieldChanges('settings', before.file.settings, after.file.settings, {
    before: new Map(),
    after: new Map(),
    prefix: '-',
  });
  if (settings.length > 0)
    plan.push({ action: 'update', section: 'settings', name: 'settings', changes: settings });
  for (const section of sections) {
    const old = new Map<string, Record<string, unknown>>(before.file[section].map((r) => [r.name, r]));
    const now = new Map<string, Record<string, unknown>>(after.file[section].map((r) => [r.name, r]));
    for (const name of [...new Set([...old.keys(), ...now.keys()])].sort()) {
      const a = old.get(name);
      const b = now.get(name);
      const secrets = {
        before: before.secretDigests,
        after: after.secretDigests,
        prefix: `${section}.${name}.`,
      };
      if (!a)
        plan.push({ action: 'create', section, name, changes: fieldChanges(section, undefined, b, secrets) });
      else if (!b)
        plan.push({ action: 'delete', section, name, changes: fieldChanges(section, a, undefined, secrets) });
      else {
        const changes = fieldChanges(section, a, b, secrets);
        if (changes.length > 0) plan.push({ action: 'update', section, name, changes });
      }
    }
  }
  return plan;
}
