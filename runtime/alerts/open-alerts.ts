/**
 * Alerts that stand (docs/alerts.md): a condition raised and not yet ended (a partner unreachable, its
 * receipts missing, an instance failed, the payload store failing): the failure code of a pair
 * (flow/alerts/alerts.ts, `resolves`) whose last alert on its subject is the failure. Alerts
 * without an end (a refused message, a failed delivery) are news, not conditions, and never
 * stand. A condition whose subject is gone (an instance deleted or disabled, a partner deleted)
 * no longer stands either: nothing is left to fix.
 */
import { endingCodes, type Severity } from '../../flow/alerts/alerts.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { direct, pgArray } from '../../storage/sql.js';
import { absoluteLink, isoSql } from './notifications.js';

export interface OpenAlert {
  alert_id: number;
  code: string;
  severity: Severity;
  subject_kind: string;
  subject_id: string;
  subject_name: string;
  summary: string;
  /** The web UI page where it is fixed, absolute with PUBLIC_URL. */
  link: string;
  raised_at: string;
}

export async function openAlerts(em: EntityManager, publicUrl: string): Promise<OpenAlert[]> {
  const pairs = Object.entries(endingCodes);
  const rows = await direct(em).all<OpenAlert & { link: string }>(
    `with pair as (select * from unnest(?::text[], ?::text[]) as p(failure, ending)),
     latest as (
       select distinct on (p.failure, a.subject_kind, a.subject_id) a.*, p.failure
         from alert a join pair p on a.code in (p.failure, p.ending)
        order by p.failure, a.subject_kind, a.subject_id, a.id desc
     )
     select l.id::int as alert_id, l.code, l.severity, l.subject_kind, l.subject_id, l.subject_name, l.summary,
            l.link, ${isoSql('l.raised_at')} as raised_at
       from latest l
      where l.code = l.failure
        and (l.subject_kind <> 'plugin-instance'
             or exists (select 1 from plugin_config c where c.type || ':' || c.name = l.subject_id and c.enabled))
        and (l.subject_kind <> 'partner' or exists (select 1 from partner p where p.name = l.subject_id))
      order by array_position(array['critical', 'warning', 'info'], l.severity::text), l.raised_at desc`,
    [pgArray(pairs.map(([failure]) => failure)), pgArray(pairs.map(([, ending]) => ending!))],
  );
  return rows.map((r) => ({ ...r, link: r.link ? absoluteLink(publicUrl, r.link) : '' }));
}

/** An alert as the dashboard lists it: newest first, whether or not a notifier heard of it. */
export interface RecentAlert {
  alert_id: number;
  code: string;
  severity: Severity;
  summary: string;
  raised_at: string;
}

/**
 * The newest alerts raised, from the alerts themselves rather than the notification log: with no
 * notifier set up there are alerts but no notifications.
 */
export async function recentAlerts(em: EntityManager, limit: number): Promise<RecentAlert[]> {
  return direct(em).all<RecentAlert>(
    `select a.id::int as alert_id, a.code, a.severity, a.summary, ${isoSql('a.raised_at')} as raised_at
       from alert a where a.code <> 'test' order by a.id desc limit ?`,
    [limit],
  );
}
