/** Reading the notification log (docs/api/notifications.md): rows joined with their alerts, newest alert first. */
import { direct, type Tx } from '../../storage/sql.js';
import type { Orm } from '../../storage/db.js';
import { absoluteLink, isoSql, type AlertColumns } from './notifications.js';

export interface LogFilter {
  severity?: string | undefined;
  code?: string | undefined;
  instance?: string | undefined;
  outcome?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  include_tests: boolean;
  limit: number;
  offset: number;
}

export interface LogRow extends AlertColumns {
  id: number;
  alert_id: number;
  alert_time: string;
  instance: string;
  format: 'json' | 'slack' | 'teams' | 'email';
  test: boolean;
  outcome: 'queued' | 'delivered' | 'failed' | 'suppressed_cooldown' | 'grouped';
  attempts: number;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

const select = `select n.id::int, n.alert_id::int, ${isoSql('a.raised_at')} as alert_time, a.severity, a.code,
       a.subject_kind, a.subject_id, a.subject_name, a.summary, a.details, a.dedupe_key, a.link,
       n.instance, n.format, n.test, n.outcome, n.attempts, n.last_error,
       ${isoSql('n.created_at')} as created_at, ${isoSql('n.delivered_at')} as delivered_at
  from notification n join alert a on a.id = n.alert_id`;

export class NotificationLog {
  readonly #db: Tx;

  constructor(
    orm: Orm,
    private readonly publicUrl: string,
  ) {
    this.#db = direct(orm);
  }

  async list(filter: LogFilter): Promise<{ rows: LogRow[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      where.push(sql);
      params.push(value);
    };
    if (!filter.include_tests) where.push('not n.test');
    if (filter.severity) add('a.severity = ?', filter.severity);
    if (filter.code) add('a.code = ?', filter.code);
    if (filter.instance) add('n.instance = ?', filter.instance);
    if (filter.outcome) add('n.outcome = ?', filter.outcome);
    if (filter.from) add('a.raised_at >= ?', filter.from);
    if (filter.to) add('a.raised_at < ?', filter.to);
    const clause = where.length > 0 ? `where ${where.join(' and ')}` : '';
    const [count] = await this.#db.all<{ n: string }>(
      `select count(*) as n from notification n join alert a on a.id = n.alert_id ${clause}`,
      params,
    );
    const rows = await this.#db.all<LogRow>(
      `${select} ${clause} order by a.raised_at desc, a.id desc, n.id desc limit ? offset ?`,
      [...params, filter.limit, filter.offset],
    );
    return { rows: rows.map((r) => this.#shown(r)), total: Number(count?.n ?? 0) };
  }

  async get(id: number): Promise<LogRow | undefined> {
    const [row] = await this.#db.all<LogRow>(`${select} where n.id = ?`, [id]);
    return row && this.#shown(row);
  }

  #shown(row: LogRow): LogRow {
    return { ...row, link: row.link ? absoluteLink(this.publicUrl, row.link) : '' };
  }
}
