/** One audit log event (docs/api/audit.md). Rows are only ever inserted. */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export interface AuditChange {
  field: string;
  old?: unknown;
  new?: unknown;
  /** A changed secret: recorded without its values. */
  secret?: true;
}

export const AuditEventSchema = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  properties: {
    id: p.integer().primary(),
    v: p.integer(),
    at: p.datetime().columnType('timestamptz'),
    actor: p.text(),
    action: p.string().length(32),
    kind: p.string().length(64),
    record_id: p.string().length(64),
    record_name: p.text(),
    changes: p.json<AuditChange[]>().columnType('jsonb'),
    prev_hash: p.string().length(64),
    hash: p.string().length(64),
  },
});
export type AuditEvent = InferEntity<typeof AuditEventSchema>;
