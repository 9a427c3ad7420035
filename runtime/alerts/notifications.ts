/**
 * The core's side of the notifiers (docs/api/notifications.md, docs/api/lifecycles.md#notification-outcome): hands a notifier the rows that are due,
 * one notification per alert code (a group carries the alerts held for its window), with a
 * lease so that one process sends each; records how sending went.
 */
import { noMetrics, type MetricsPort } from '../../protocol/metrics/port.js';
import type {
  NotificationJob,
  NotificationOutcome,
  NotifiedAlert,
  NotifyRequest,
  NotifyResponse,
} from '../../protocol/notify-protocol.js';
import type { Logger } from 'pino';
import type { Orm } from '../../storage/db.js';
import { direct, inTx, pgArray, type Tx } from '../../storage/sql.js';
import type { InstanceRef } from '../supervisor/core-port.js';
import { alertCodes } from '../../flow/alerts/alerts.js';

/** The columns of an alert that a notification row is read with, to send it or to list it. */
export interface AlertColumns {
  code: string;
  severity: NotifiedAlert['severity'];
  subject_kind: string;
  subject_id: string;
  subject_name: string;
  summary: string;
  details: Record<string, unknown>;
  dedupe_key: string;
  /** A path (made absolute with absoluteLink) or a whole URL. */
  link: string;
}

interface DueRow extends AlertColumns {
  id: string;
  test: boolean;
  alert_id: string;
  raised_at: string;
  instance: string;
}

/** A stored link path made absolute for a receiver outside. */
export function absoluteLink(publicUrl: string, link: string): string {
  return link.startsWith('/') ? `${publicUrl}${link}` : link;
}

/** RFC 3339 in UTC with milliseconds, computed by PostgreSQL. */
export const isoSql = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export function alertOfRow(row: DueRow, publicUrl: string): NotifiedAlert {
  return {
    alert_id: Number(row.alert_id),
    code: row.code,
    severity: row.severity,
    subject_kind: row.subject_kind,
    subject_id: row.subject_id,
    subject_name: row.subject_name,
    summary: row.summary,
    details: row.details,
    dedupe_key: row.dedupe_key,
    link: row.link ? absoluteLink(publicUrl, row.link) : '',
    raised_at: row.raised_at,
    instance: row.instance,
    resolves: resolvesOf(row.code),
  };
}

/** The code whose end `code` announces (flow/alerts/alerts.ts), or null. */
function resolvesOf(code: string): string | null {
  const spec = (alertCodes as Record<string, { resolves?: string }>)[code];
  return spec?.resolves ?? null;
}

/** Seconds a claimed notification is left to its sender: every attempt and wait, and a minute. */
export function leaseSeconds(settings: Record<string, unknown>): number {
  const n = (key: string, fallback: number) => (typeof settings[key] === 'number' ? settings[key] : fallback);
  return n('max_attempts', 5) * (n('timeout_seconds', 10) + n('retry_max_interval', 60)) + 60;
}

export class Notifications {
  readonly #db: Tx;
  /** Who waits for a notification's first attempt (firstAttempt), by notification id. */
  readonly #firstAttempts = new Map<number, (() => void)[]>();
  /** Who waits for a notification's outcome (settled), by notification id. */
  readonly #outcomes = new Map<number, (() => void)[]>();

  constructor(
    private readonly orm: Orm,
    private readonly now: () => Date,
    private readonly publicUrl: string,
    private readonly logger?: Logger,
    private readonly metrics: MetricsPort = noMetrics,
  ) {
    this.#db = direct(orm);
  }

  /** Answers whoever still waits for a first attempt: the process is stopping, the rows stay as they are. */
  async close(): Promise<void> {
    for (const waiters of [this.#firstAttempts, this.#outcomes])
      for (const id of [...waiters.keys()]) this.#told(waiters, id);
  }

  async answer(instance: InstanceRef, request: NotifyRequest): Promise<NotifyResponse> {
    if (request.type === 'notify_claim') {
      const jobs = await this.claim(instance, request.limit);
      return { type: 'notify_claimed', jobs, next_due_ms: await this.nextDue(instance.name) };
    }
    if (request.type === 'notify_progress') {
      await this.progress(request.notification_id, request.attempts, request.error);
      return { type: 'notify_done' };
    }
    await this.record(request);
    this.metrics.count('pier_notifications_total', {
      notifier: instance.name,
      outcome: request.ok ? 'delivered' : 'failed',
    });
    return { type: 'notify_done' };
  }

  /** Due rows of a notifier, leased to the caller, as notifications (one per code; tests alone). */
  async claim(instance: InstanceRef, limit: number): Promise<NotificationJob[]> {
    const at = this.now();
    const until = new Date(at.getTime() + leaseSeconds(instance.settings) * 1000);
    const rows = await inTx(this.orm, (tx) =>
      tx.all<DueRow>(
        `with due as (
           select id from notification
            where instance = ? and outcome = 'queued' and send_after <= ?
              and (claimed_until is null or claimed_until < ?)
            order by id limit 500 for update skip locked
         ), leased as (
           update notification n set claimed_until = ? from due where n.id = due.id
           returning n.id, n.test, n.alert_id
         )
         select l.id, l.test, a.id as alert_id, a.code, a.severity, a.subject_kind, a.subject_id, a.subject_name,
                a.summary, a.details, a.dedupe_key, a.link, ${isoSql('a.raised_at')} as raised_at, a.instance
           from leased l join alert a on a.id = l.alert_id
          order by a.raised_at, l.id`,
        [instance.name, at, at, until],
      ),
    );
    const groups = new Map<string, DueRow[]>();
    for (const row of rows) {
      const key = row.test ? `test:${row.id}` : row.code;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    const jobs: NotificationJob[] = [];
    const giveBack: string[] = [];
    for (const group of groups.values()) {
      if (jobs.length >= limit) {
        giveBack.push(...group.map((r) => r.id));
        continue;
      }
      // The newest row carries the notification; the older ones are listed in it.
      const carrier = group[group.length - 1]!;
      jobs.push({
        notification_id: Number(carrier.id),
        grouped: group.slice(0, -1).map((r) => Number(r.id)),
        test: carrier.test,
        alerts: group.map((r) => alertOfRow(r, this.publicUrl)),
      });
    }
    if (giveBack.length > 0) {
      await this.#db.all('update notification set claimed_until = null where id = any(?::bigint[])', [
        pgArray(giveBack),
      ]);
    }
    return jobs;
  }

  async nextDue(instance: string): Promise<number | null> {
    const at = this.now();
    const [row] = await this.#db.all<{ due: string | null }>(
      `select ${isoSql('min(send_after)')} as due from notification
        where instance = ? and outcome = 'queued' and send_after > ?`,
      [instance, at],
    );
    return row?.due ? Math.max(0, Date.parse(row.due) - at.getTime()) : null;
  }

  /** A failed attempt of a notification still being sent: the row shows it while it stays queued. */
  async progress(notificationId: number, attempts: number, error: string): Promise<void> {
    await this.#db.all(
      `update notification set attempts = ?, last_error = ? where id = ? and outcome = 'queued'`,
      [attempts, error, notificationId],
    );
    this.#told(this.#firstAttempts, notificationId);
  }

  /**
   * Resolves once the notifier reports the first attempt of a notification (a retry's progress
   * or its outcome), or after `withinMs` at the latest: whoever waits then reads the row as it
   * stands. Register before the notifier gets the notification.
   */
  firstAttempt(notificationId: number, withinMs: number): Promise<void> {
    return this.#wait(this.#firstAttempts, notificationId, withinMs);
  }

  /** Resolves once the notification's outcome is recorded, or after `withinMs` at the latest. */
  settled(notificationId: number, withinMs: number): Promise<void> {
    return this.#wait(this.#outcomes, notificationId, withinMs);
  }

  #wait(waiters: Map<number, (() => void)[]>, notificationId: number, withinMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, withinMs);
      timer.unref();
      waiters.set(notificationId, [...(waiters.get(notificationId) ?? []), done]);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  #told(waiters: Map<number, (() => void)[]>, notificationId: number): void {
    const waiting = waiters.get(notificationId);
    waiters.delete(notificationId);
    for (const done of waiting ?? []) done();
  }

  async record(outcome: NotificationOutcome): Promise<void> {
    const at = this.now();
    await inTx(this.orm, async (tx) => {
      await tx.all(
        `update notification set outcome = ?, attempts = ?, last_error = ?, delivered_at = ?, claimed_until = null
          where id = ? and outcome = 'queued'`,
        [
          outcome.ok ? 'delivered' : 'failed',
          outcome.attempts,
          outcome.ok ? null : (outcome.error ?? 'failed'),
          outcome.ok ? at : null,
          outcome.notification_id,
        ],
      );
      if (outcome.grouped.length > 0) {
        await tx.all(
          `update notification set outcome = 'grouped', grouped_into = ?, attempts = ?, last_error = ?,
                  delivered_at = ?, claimed_until = null
            where id = any(?::bigint[]) and outcome = 'queued'`,
          [
            outcome.notification_id,
            outcome.attempts,
            outcome.ok ? null : (outcome.error ?? 'failed'),
            outcome.ok ? at : null,
            pgArray(outcome.grouped),
          ],
        );
      }
    });
    // After the commit, so whoever waits reads the outcome.
    this.#told(this.#firstAttempts, outcome.notification_id);
    this.#told(this.#outcomes, outcome.notification_id);
  }
}
