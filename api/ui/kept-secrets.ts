/**
 * Write-only values of a refused form, kept in this process for a while so the operator does
 * not type a webhook URL or a password again after fixing another field
 * (docs/decisions/ui-write-only-values-after-a-refusal.md). The page never carries the value:
 * it carries a random ticket in a hidden field, good only for the session (its CSRF token)
 * that entered the value, for ten minutes, and only on the process that drew the page.
 */
import { randomBytes } from 'node:crypto';
import type { FormFields } from './form.js';
import { limits } from '../../limits/limits.js';

/** The hidden field that carries the ticket. */
export const keptField = '_kept';

interface Entry {
  session: string;
  values: Record<string, string>;
  expires: number;
}

export class KeptSecrets {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Fills the write-only fields a submission left blank with the values kept under its ticket
   * (an entered value replaces a kept one), and forgets the ticket: each answer makes a new one.
   */
  restore(session: string, fields: FormFields, writeOnly: readonly string[]): FormFields {
    const ticket = fields[keptField];
    const out: FormFields = { ...fields };
    delete out[keptField];
    if (typeof ticket !== 'string') return out;
    const entry = this.entries.get(ticket);
    this.entries.delete(ticket);
    if (!entry || entry.session !== session || entry.expires < this.now()) return out;
    for (const [name, value] of Object.entries(entry.values)) {
      if (writeOnly.includes(name) && (out[name] === undefined || out[name] === '')) out[name] = value;
    }
    return out;
  }

  /** Keeps the write-only values of a refused submission; the ticket and what it holds, or none. */
  keep(
    session: string,
    fields: FormFields,
    writeOnly: readonly string[],
  ): { ticket: string; names: string[] } | undefined {
    const values: Record<string, string> = {};
    for (const name of writeOnly) {
      const value = fields[name];
      if (typeof value === 'string' && value !== '') values[name] = value;
    }
    const names = Object.keys(values);
    if (names.length === 0) return undefined;
    this.sweep();
    const ticket = randomBytes(18).toString('base64url');
    this.entries.set(ticket, { session, values, expires: this.now() + limits.keptFormLifetimeMs });
    return { ticket, names };
  }

  get size(): number {
    return this.entries.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [ticket, entry] of this.entries) if (entry.expires < now) this.entries.delete(ticket);
    while (this.entries.size >= limits.maxKeptForms) this.entries.delete(this.entries.keys().next().value!);
  }
}
