/**
 * The payload store as the actors find it (their `storage` events): `storage_failed` when one
 * finds it failing, `storage_recovered` when one writes to it again. Each actor tells only of a
 * change, and the alert table keeps the two codes alternating across the cluster (alerts.ts), so
 * an outage is one alert, one end, and a log line per actor at each.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Orm } from '../../storage/db.js';
import type { StoreSelection } from '../../storage/payloads/selection.js';
import { raiseAlert } from '../../flow/alerts/alerts.js';
import { alertLinks } from '../../flow/alerts/links.js';

export interface StorageAlertDeps {
  orm: Orm;
  now: () => Date;
  logger: Logger;
  /** The store this process runs with. */
  storage: StoreSelection;
}

const nameOf = (storage: StoreSelection) =>
  storage.backend === 'local' ? `payload directory ${storage.directory}` : `payload bucket ${storage.bucket}`;

/** What the supervisor calls with an instance's `storage` event. */
export function storageReports(deps: StorageAlertDeps) {
  const subject = {
    subject_kind: 'storage',
    subject_id: deps.storage.backend,
    subject_name: `payload store (${deps.storage.backend === 'local' ? 'local directory' : 'S3'})`,
    link: alertLinks.settings(),
  };
  const name = nameOf(deps.storage);
  // One report at a time, so an end never overtakes the failure it ends.
  let turn: Promise<void> = Promise.resolve();
  return (instance: string, ok: boolean, problem = ''): Promise<void> => {
    turn = turn.then(() => report(instance, ok, problem));
    return turn;
  };

  function report(instance: string, ok: boolean, problem: string): Promise<void> {
    const em = deps.orm.em.fork() as EntityManager;
    if (ok) deps.logger.info({ instance }, `the ${name} takes payloads again`);
    else
      deps.logger.error({ instance, problem }, `the ${name} cannot take payloads; they wait at their source`);
    const alert = ok
      ? {
          ...subject,
          code: 'storage_recovered' as const,
          summary: `The ${name} takes payloads again`,
          details: { instance },
          instance,
        }
      : {
          ...subject,
          code: 'storage_failed' as const,
          summary: `The ${name} cannot take payloads: ${problem}`,
          details: { instance, problem },
          instance,
        };
    return raiseAlert(em, alert, deps.now()).then(
      () => {},
      (error: unknown) => deps.logger.error({ err: error }, `could not raise the ${alert.code} alert`),
    );
  }
}
