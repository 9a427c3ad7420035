/**
 * SFTP servers whose host key changed (the instances' `host_key` events): `host_key_changed`,
 * critical, on the instance, linking to its page where the key is pinned again once the
 * partner confirms it. The connection was refused already; this makes it seen.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Orm } from '../../storage/db.js';
import { raiseAlert } from '../../flow/alerts/alerts.js';
import { alertLinks } from '../../flow/alerts/links.js';
import type { InstanceRef } from '../supervisor/core-port.js';

export interface HostKeyAlertDeps {
  orm: Orm;
  now: () => Date;
  logger: Logger;
}

/** What the supervisor calls with an instance's `host_key` event. */
export function hostKeyReports(deps: HostKeyAlertDeps) {
  return (instance: InstanceRef, server: string, presented: string, pinned: string): void => {
    const key = `${instance.type}:${instance.name}`;
    const em = deps.orm.em.fork() as EntityManager;
    raiseAlert(
      em,
      {
        code: 'host_key_changed',
        subject_kind: 'plugin-instance',
        subject_id: key,
        subject_name: key,
        summary: `The SFTP server ${server} presented another host key than the pinned one; nothing is transferred`,
        details: { server, presented, pinned },
        instance: key,
        link: alertLinks.instance(instance.type, instance.name),
      },
      deps.now(),
    ).catch((error: unknown) =>
      deps.logger.error({ err: error }, 'could not raise the host_key_changed alert'),
    );
  };
}
