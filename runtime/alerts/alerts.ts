/**
 * Raising alerts (spec 6.2). An alert is stored once; the notification module delivers it
 * to each notifier and keeps the notification log. Codes live in one table here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../dispatch/tx.js';

export const alertCodes = {
  plugin_failed: { severity: 'critical' },
  delivery_stalled: { severity: 'warning' },
  certificate_expiring: { severity: 'warning' },
  certificate_expired: { severity: 'critical' },
} as const satisfies Record<string, { severity: 'info' | 'warning' | 'critical' }>;

export type AlertCode = keyof typeof alertCodes;

export interface AlertInput {
  code: AlertCode;
  subject_kind: string;
  subject_id: string | number;
  subject_name: string;
  summary: string;
  details?: Record<string, unknown>;
  /** Alerts with the same key describe the same condition; notifiers may group them. */
  dedupe_key?: string;
  /** A path in the web UI or API where the subject can be seen. */
  link?: string;
  /** The plugin instance concerned, as `<type>:<name>`, when there is one. */
  instance?: string;
}

/** Stores an alert; runs in the caller's transaction when `em` is transactional. Returns its id. */
export async function raiseAlert(
  db: EntityManager | Tx,
  alert: AlertInput,
  at: Date = new Date(),
): Promise<number> {
  const run = (text: string, params: unknown[]) =>
    'all' in db
      ? db.all<{ id: string }>(text, params)
      : db.getConnection().execute<{ id: string }[]>(text, params, 'all', db.getTransactionContext());
  const rows = await run(
    `insert into alert (code, severity, subject_kind, subject_id, subject_name, summary, details, dedupe_key, link, instance, raised_at)
     values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?) returning id`,
    [
      alert.code,
      alertCodes[alert.code].severity,
      alert.subject_kind,
      String(alert.subject_id),
      alert.subject_name,
      alert.summary,
      JSON.stringify(alert.details ?? {}),
      alert.dedupe_key ?? `${alert.code}:${alert.subject_kind}:${alert.subject_id}`,
      alert.link ?? '',
      alert.instance ?? '',
      at,
    ],
  );
  return Number(rows[0]!.id);
}
