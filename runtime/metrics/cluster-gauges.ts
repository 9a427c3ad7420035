/**
 * Cluster-wide gauges, read from the database when Prometheus scrapes: deliveries waiting at
 * each target, messages in flight, alerts raised and alerts still open. Every process sees the
 * same rows, so only one process exports them: the one holding the cluster's metrics lock
 * (runtime/cluster/presence.ts). A sum over the cluster's processes is then the cluster's figure;
 * `pier_cluster_metrics_exporter` says which process it is.
 */
import type { Orm } from '../../storage/db.js';
import { alertCodes, type AlertCode } from '../../flow/alerts/alerts.js';
import type { PierMetrics } from './registry.js';
import { inEntityTx } from '../../storage/sql.js';

/** Delivery states that are not final: the work still in hand somewhere in the cluster. */
const pendingStates = ['queued', 'delivering', 'retrying', 'awaiting_ack'];

/** Failure codes that have an end (`storage_failed` → `storage_recovered`): they can be open. */
const endedBy = new Map<string, string>();
for (const [code, spec] of Object.entries(alertCodes) as [AlertCode, (typeof alertCodes)[AlertCode]][])
  if ('resolves' in spec) endedBy.set(spec.resolves, code);

export function clusterGauges(metrics: PierMetrics, orm: Orm, exporter: () => Promise<boolean>): void {
  const query = <T extends object>(sql: string, params: unknown[] = []) =>
    inEntityTx(orm.em).all<T>(sql, params);
  // One check per scrape, shared by the gauges below (each collects on its own).
  let checked: { at: number; holds: Promise<boolean> } | undefined;
  const holds = () => {
    if (!checked || Date.now() - checked.at > 1000)
      checked = { at: Date.now(), holds: exporter().catch(() => false) };
    return checked.holds;
  };
  metrics.gauge(
    'pier_cluster_metrics_exporter',
    "1 in the one process that exports the cluster's gauges (queue depth, messages in flight, alerts)",
    [],
    async (set) => set({}, (await holds()) ? 1 : 0),
  );
  metrics.gauge(
    'pier_deliveries_pending',
    'Deliveries not finished, cluster-wide, by target and state (queued, delivering, retrying, awaiting_ack)',
    ['target', 'state'],
    async (set) => {
      if (!(await holds())) return;
      const rows = await query<{ target: string; state: string; n: string }>(
        `select target, state, count(*) as n from delivery where state = any(?::text[]) group by target, state`,
        [`{${pendingStates.join(',')}}`],
      );
      for (const r of rows) set({ target: r.target, state: r.state }, Number(r.n));
    },
  );
  metrics.gauge(
    'pier_messages_in_flight',
    'Messages with a delivery not finished, cluster-wide',
    [],
    async (set) => {
      if (!(await holds())) return;
      const [row] = await query<{ n: string }>(
        `select count(distinct message_id) as n from delivery where state = any(?::text[])`,
        [`{${pendingStates.join(',')}}`],
      );
      set({}, Number(row?.n ?? 0));
    },
  );
  metrics.gauge(
    'pier_alerts_raised',
    'Alerts stored in the cluster since it began, by code and severity (only grows; use increase())',
    ['code', 'severity'],
    async (set) => {
      if (!(await holds())) return;
      const rows = await query<{ code: string; severity: string; n: string }>(
        `select code, severity, count(*) as n from alert group by code, severity`,
      );
      for (const r of rows) set({ code: r.code, severity: r.severity }, Number(r.n));
    },
  );
  metrics.gauge(
    'pier_alerts_open',
    'Failures raised and not yet ended, cluster-wide, by code (codes that have an end, such as storage_failed)',
    ['code'],
    async (set) => {
      if (!(await holds())) return;
      for (const [failure, end] of endedBy) {
        // The last alert of each subject for this failure or its end: open when it is the failure.
        const [row] = await query<{ n: string }>(
          `select count(*) as n from (
             select distinct on (subject_kind, subject_id) code from alert
              where code in (?, ?) order by subject_kind, subject_id, id desc) last
            where code = ?`,
          [failure, end, failure],
        );
        set({ code: failure }, Number(row?.n ?? 0));
      }
    },
  );
}
