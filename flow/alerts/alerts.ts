/**
 * Raising alerts (docs/api/events.md#alerts-and-notifications, docs/alerts.md). An alert is stored once in the cluster and, in
 * the same transaction, logged for each enabled notifier as queued, held for its group
 * window, or suppressed by its cooldown; the notifiers are then told there is work.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { inEntityTx, pgArray, type Tx } from '../../storage/sql.js';
import { workChannel } from '../work-notice.js';

const minute = 60;
/**
 * A standing condition (a partner down, receipts missing) is one alert until its end is raised:
 * seen again within this many seconds while unended, it is the same alert. After 30 days an
 * operator who ignored it hears of it again.
 */
const untilEnded = 30 * 24 * 60 * minute;
/**
 * Severity of each code, and `once`: seconds within which the same cause (code and subject)
 * seen again, by this process or another, is the same alert and not raised twice. `resolves`
 * names the code whose end this one announces: it is raised only while that code's last alert
 * on the subject stands unresolved, and after it the same failure is news again at once.
 */
export const alertCodes = {
  // Every failed start is news (an operator's retry included); each process runs its own copy.
  plugin_failed: { severity: 'critical', once: 0 },
  /** An instance that failed is running again (a receiver whose port was taken, restarted). */
  plugin_recovered: { severity: 'critical', once: 0, resolves: 'plugin_failed' },
  /** A partner failed a few attempts in a row, or for a few minutes (partner-alerts.ts). */
  partner_unreachable: { severity: 'critical', once: untilEnded },
  partner_reachable: { severity: 'critical', once: 0, resolves: 'partner_unreachable' },
  /** An AS2 partner's asynchronous receipts stopped arriving: one overdue stands for the rest. */
  receipts_missing: { severity: 'warning', once: untilEnded },
  receipts_resumed: { severity: 'warning', once: 0, resolves: 'receipts_missing' },
  delivery_stalled: { severity: 'warning', once: minute },
  delivery_failed: { severity: 'warning', once: minute },
  mdn_overdue: { severity: 'warning', once: minute },
  /** A partner did not send the functional acknowledgement (997, 999, CONTRL) of an interchange in time. */
  acknowledgement_overdue: { severity: 'warning', once: minute },
  message_refused: { severity: 'warning', once: minute },
  /** A partner's interchange named a sender it may not send for (accept-plan.ts): possibly forged. */
  edi_sender_mismatch: { severity: 'critical', once: 0 },
  certificate_expiring: { severity: 'warning', once: 20 * 60 * minute },
  certificate_expired: { severity: 'critical', once: 20 * 60 * minute },
  storage_failed: { severity: 'critical', once: 5 * minute },
  // The end of a failure reaches every notifier that heard of the failure: the same severity.
  storage_recovered: { severity: 'critical', once: 0, resolves: 'storage_failed' },
  system_degraded: { severity: 'critical', once: 24 * 60 * minute },
  /** Another node of a multi-host DATABASE_URL became primary; every process that sees it is one alert. */
  database_failover: { severity: 'warning', once: 5 * minute },
  /** A partner did not answer our certificate exchange request by its respond-by date (runtime/cem/). */
  cem_overdue: { severity: 'warning', once: 24 * 60 * minute },
  /**
   * An SFTP server presented another host key than the pinned one and was refused: a possible
   * attack, or a reinstalled server. Each transfer tries again, so once an hour per instance.
   */
  host_key_changed: { severity: 'critical', once: 60 * minute },
  /** A notifier's test notification (POST …/notification-webhook/{name}/test); never raised. */
  test: { severity: 'info', once: 0 },
} as const satisfies Record<
  string,
  { severity: 'info' | 'warning' | 'critical'; once: number; resolves?: string }
>;

export type AlertCode = keyof typeof alertCodes;

/** Codes whose alert stands until a later code ends it: `storage_failed` → `storage_recovered`, … */
export const endingCodes = Object.fromEntries(
  Object.entries(alertCodes).flatMap(([code, spec]) => ('resolves' in spec ? [[spec.resolves, code]] : [])),
) as Partial<Record<AlertCode, AlertCode>>;
export type Severity = (typeof alertCodes)[AlertCode]['severity'];

export interface AlertInput {
  code: Exclude<AlertCode, 'test'>;
  subject_kind: string;
  subject_id: string | number;
  subject_name: string;
  summary: string;
  details?: Record<string, unknown>;
  /** Alerts with the same key describe the same condition: a notifier's cooldown applies to it. */
  dedupe_key?: string;
  /** A path of the web UI where the subject is seen and fixed (links.ts; made absolute with PUBLIC_URL). */
  link?: string;
  /** The plugin instance concerned, as `<type>:<name>`, when there is one. */
  instance?: string;
}

type Run = <T>(text: string, params: unknown[]) => Promise<T[]>;

/**
 * Stores an alert and its notification rows; runs in the caller's transaction when given one
 * (a Tx, or a transactional entity manager), else in its own. Returns the alert's id, or that
 * of the alert already raised for the same cause (for an end with no failure to end: the last
 * end's, or 0).
 */
export async function raiseAlert(
  db: EntityManager | Tx,
  alert: AlertInput,
  at: Date = new Date(),
): Promise<number> {
  if ('all' in db) return raise((text, params) => db.all(text, params), alert, at);
  if (db.getTransactionContext()) return raise(runOn(db), alert, at);
  return db.transactional((em) => raise(runOn(em as EntityManager), alert, at));
}

function runOn(em: EntityManager): Run {
  const tx = inEntityTx(em);
  return <T>(text: string, params: unknown[]) => tx.all<T>(text, params);
}

/** The code a resolving code ends, and the code that ends a code, when there is one. */
const resolvedCode = (code: AlertCode): AlertCode | undefined => {
  const spec = alertCodes[code];
  return 'resolves' in spec ? spec.resolves : undefined;
};
const resolvingCode = (code: AlertCode): AlertCode | undefined =>
  (Object.keys(alertCodes) as AlertCode[]).find((c) => resolvedCode(c) === code);

/** The turn (advisory lock key) an alert's raising takes: a failure and its end share one. */
export function alertTurn(code: AlertCode, subjectKind: string, subjectId: string): string {
  return `${resolvedCode(code) ?? code}:${subjectKind}:${subjectId}`;
}

const degradedTurn = 'system_degraded:system:pier';

/**
 * Takes the turns of alerts a transaction is about to raise, before it raises any, in the one
 * order of the flow (docs/architecture.md, "Lock order of the message flow"): the system's
 * state first (every settle that ends a message in Error takes it before its own alerts), then
 * the others by name. A transaction that raises several alerts one after another (the receipt
 * deadlines: a message settled, then its partner's alert, then the next message) otherwise took
 * them in its own order and could wait in a circle with a receipt that took the same two turns
 * the other way round.
 */
export async function takeAlertTurns(tx: Tx, turns: readonly string[]): Promise<void> {
  const sorted = [...new Set(turns)].sort((a, b) =>
    a === degradedTurn ? -1 : b === degradedTurn ? 1 : a < b ? -1 : a > b ? 1 : 0,
  );
  for (const turn of sorted)
    await tx.all(`select pg_advisory_xact_lock(hashtext('pier_alert'), hashtext(?))`, [turn]);
}

async function raise(run: Run, alert: AlertInput, at: Date): Promise<number> {
  const of = (code: AlertCode) => `${code}:${alert.subject_kind}:${alert.subject_id}`;
  const occurrence = of(alert.code);
  const ends = resolvedCode(alert.code);
  const endedBy = resolvingCode(alert.code);
  // Two processes seeing the same cause take turns here; the second finds the first's alert. A
  // failure and its end take the same turn, so they alternate.
  await run(`select pg_advisory_xact_lock(hashtext('pier_alert'), hashtext(?))`, [of(ends ?? alert.code)]);
  if (ends) {
    const [last] = await run<{ id: string; occurrence: string }>(
      `select id, occurrence from alert where occurrence in (?, ?) order by id desc limit 1`,
      [of(ends), occurrence],
    );
    // Nothing to end: no failure, or its end was raised already (by this process or another).
    if (last?.occurrence !== of(ends)) return last ? Number(last.id) : 0;
  } else {
    const [earlier] = await run<{ id: string; occurrence: string }>(
      `select id, occurrence from alert where occurrence in (?, ?) and raised_at > ? order by id desc limit 1`,
      [
        occurrence,
        endedBy ? of(endedBy) : occurrence,
        new Date(at.getTime() - alertCodes[alert.code].once * 1000),
      ],
    );
    if (earlier?.occurrence === occurrence) return Number(earlier.id);
  }
  const severity = alertCodes[alert.code].severity;
  const dedupeKey = alert.dedupe_key ?? `${alert.code}:${alert.subject_kind}:${alert.subject_id}`;
  const [row] = await run<{ id: string }>(
    `insert into alert (code, severity, subject_kind, subject_id, subject_name, summary, details, dedupe_key,
                        link, instance, raised_at, occurrence)
     values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?, ?) returning id`,
    [
      alert.code,
      severity,
      alert.subject_kind,
      String(alert.subject_id),
      alert.subject_name,
      alert.summary,
      JSON.stringify(alert.details ?? {}),
      dedupeKey,
      alert.link ?? '',
      alert.instance ?? '',
      at,
      occurrence,
    ],
  );
  const id = Number(row!.id);
  const logged = await run<{ instance: string; outcome: string }>(logForNotifiers, [
    id,
    dedupeKey,
    at,
    at,
    alert.code,
    at,
    at,
    severity,
  ]);
  const queued = logged.filter((l) => l.outcome === 'queued').map((l) => l.instance);
  if (queued.length > 0) {
    await run(`select pg_notify('${workChannel}', t) from unnest(?::text[]) as t`, [
      pgArray([...new Set(queued)]),
    ]);
  }
  return id;
}

/**
 * One row per enabled notifier whose least severity the alert reaches: suppressed when the
 * notifier was told of the same dedupe key within its cooldown; else queued, held until the
 * group window of the first alert of the same code it was told of within that window ends
 * (the first of a burst goes at once, the rest follow together as one).
 * Parameters: alert id, dedupe key, time, time, code, time, time, severity.
 */
const logForNotifiers = `
  with notifier as (
    select name,
           case when type = 'notification-email' then 'email' else coalesce(settings->>'format', 'json') end as format,
           make_interval(secs => coalesce((settings->>'cooldown_seconds')::int, 900)) as cooldown,
           make_interval(secs => coalesce((settings->>'group_window_seconds')::int, 60)) as window_
      from plugin_config
     where type in ('notification-webhook', 'notification-email') and enabled
  ), params as (select ?::bigint as alert_id, ?::text as dedupe_key, ?::timestamptz as at)
  insert into notification (alert_id, instance, format, test, outcome, created_at, send_after)
  select p.alert_id, c.name, c.format, false,
         case when exists (select 1 from notification n join alert a on a.id = n.alert_id
                            where n.instance = c.name and not n.test and n.outcome <> 'suppressed_cooldown'
                              and a.dedupe_key = p.dedupe_key and n.alert_id <> p.alert_id
                              and n.created_at > p.at - c.cooldown)
              then 'suppressed_cooldown' else 'queued' end,
         p.at,
         greatest(?::timestamptz, coalesce(
           (select min(n.created_at) + c.window_ from notification n join alert a on a.id = n.alert_id
             where n.instance = c.name and not n.test and n.outcome <> 'suppressed_cooldown'
               and a.code = ? and n.created_at > ?::timestamptz - c.window_ and n.created_at <= ?::timestamptz),
           p.at))
    from notifier c, params p
   where array_position(array['info', 'warning', 'critical'], ?)
         >= array_position(array['info', 'warning', 'critical'],
                           coalesce((select settings->>'min_severity' from plugin_config
                                      where type in ('notification-webhook', 'notification-email')
                                        and name = c.name), 'warning'))
  returning instance, outcome`;
