/**
 * The audit hash chain: each event's hash is HMAC-SHA-256 under AUDIT_KEY over the event's
 * canonical form, which includes the previous event's hash. Changing, removing or
 * reordering a hashed event breaks the chain at that point.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AuditChange } from '../../storage/entities/audit-event.js';

/** Version of the canonical form; stored as `v` on every event. */
export const auditEventVersion = 1;

export interface ChainedFields {
  v: number;
  id: number;
  at: Date;
  actor: string;
  action: string;
  kind: string;
  record_id: string;
  record_name: string;
  changes: AuditChange[];
  prev_hash: string;
}

/** JSON with object keys sorted, so the same event always gives the same bytes. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** HMAC over exactly the chained fields, whatever else the row carries. */
export function eventHash(key: string, event: ChainedFields): string {
  const fields: Record<keyof ChainedFields, unknown> = {
    v: event.v,
    id: event.id,
    at: event.at.toISOString(),
    actor: event.actor,
    action: event.action,
    kind: event.kind,
    record_id: event.record_id,
    record_name: event.record_name,
    changes: event.changes,
    prev_hash: event.prev_hash,
  };
  const canonical = canonicalJson(fields);
  return createHmac('sha256', key).update(canonical).digest('hex');
}

export interface StoredEvent extends ChainedFields {
  hash: string;
}

export interface VerifyResult {
  ok: boolean;
  events_checked: number;
  chained: number;
  unchained: number;
  head_id: number | null;
  head_hash: string;
  first_broken_id?: number;
  reason?: string;
}

/** Walks events in id order; stops at the first event that does not verify. */
export class ChainVerifier {
  #previousHash = '';
  #result: VerifyResult = {
    ok: true,
    events_checked: 0,
    chained: 0,
    unchained: 0,
    head_id: null,
    head_hash: '',
  };

  constructor(private readonly key: string | undefined) {}

  /** Returns false once the chain is broken (further events are not examined). */
  add(event: StoredEvent): boolean {
    const r = this.#result;
    r.events_checked++;
    r.head_id = event.id;
    r.head_hash = event.hash;
    if (event.hash === '') {
      r.unchained++;
    } else {
      r.chained++;
      const broken = this.#check(event);
      if (broken) {
        r.ok = false;
        r.first_broken_id = event.id;
        r.reason = broken;
        return false;
      }
    }
    this.#previousHash = event.hash;
    return true;
  }

  get result(): VerifyResult {
    return this.#result;
  }

  #check(event: StoredEvent): string | undefined {
    if (event.prev_hash !== this.#previousHash) {
      return 'prev_hash does not match the hash of the event before it (an event was removed, reordered or changed)';
    }
    const expected = Buffer.from(eventHash(this.key ?? '', event), 'hex');
    const actual = Buffer.from(event.hash, 'hex');
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
      return 'hash does not match the event contents (the event was changed, or AUDIT_KEY differs)';
    }
    return undefined;
  }
}
