/**
 * A failover seen by this process: when the primary locator finds another node of a multi-host
 * DATABASE_URL primary, a warning line, the `pier_database_failovers_total` counter and the
 * `database_failover` alert (one in the cluster: every process sees the same change, and the
 * alert's window makes their reports one).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Orm } from '../../storage/db.js';
import type { MetricsPort } from '../../protocol/metrics/port.js';
import { primaryLocator } from '../../storage/primary-locator.js';
import { raiseAlert } from '../../flow/alerts/alerts.js';
import { alertLinks } from '../../flow/alerts/links.js';

export function watchFailovers(
  databaseUrl: string,
  deps: { orm: Orm; now: () => Date; logger: Logger; metrics: MetricsPort },
): void {
  const locator = primaryLocator(databaseUrl);
  if (!locator.several) return;
  locator.onChange((from, to) => {
    const fromName = `${from.host}:${from.port}`;
    const toName = `${to.host}:${to.port}`;
    deps.logger.warn({ from: fromName, to: toName }, 'the database primary changed; connections moved to it');
    deps.metrics.count('pier_database_failovers_total', {});
    raiseAlert(
      deps.orm.em.fork() as EntityManager,
      {
        code: 'database_failover',
        subject_kind: 'database',
        subject_id: toName,
        subject_name: `database node ${toName}`,
        summary: `The database primary moved from ${fromName} to ${toName}`,
        details: { from: fromName, to: toName },
        link: alertLinks.settings(),
      },
      deps.now(),
    ).catch((error: unknown) =>
      deps.logger.error({ err: error }, 'could not raise the database_failover alert'),
    );
  });
}
