/**
 * A plugin type's worker run once, outside the table of instances: a thread of its own, started
 * with the configuration as saved (whether or not the instance runs, and whatever it runs with),
 * whose questions the caller answers, stopped when the caller's work is done. A notifier's test
 * notification is sent this way (runtime/alerts/test-notification.ts): by the notifier's own code
 * in its own thread, with the settings an operator just saved, never from the main thread.
 */
import type { Logger } from 'pino';
import { pluginTypeDefinitions, type PluginType } from '../../actors/index.js';
import { ActorThread, StartFailure } from '../../protocol/actor-thread.js';
import { ActorEvent, CoreRequest, type CoreResponse } from '../../protocol/core-protocol.js';
import { actorLogLevel, type ActorStartData } from '../../protocol/worker-host/start-data.js';
import type { Orm } from '../../storage/db.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { ChildSpec } from './child-spec.js';
import { openInstanceCertificates } from './instance-certificates.js';
import { loadInstanceConfig } from './instance-config.js';

export interface RunOnceDeps {
  orm: Orm;
  secrets: SecretBox;
  logger: Logger;
  now: () => Date;
  storage: ActorStartData['storage'];
  userAgent: string;
  /** The worker entry of each type this process runs. */
  entries: Partial<Record<PluginType, URL>>;
  childSpec: ChildSpec;
  /** The supervisor's register of live threads: a stopping process ends this one too. */
  threads: Set<ActorThread>;
}

/**
 * Starts the worker and resolves once it is ready (StartFailure when it cannot start); the thread
 * is asked to stop when `done` settles. `answer` gets each of the thread's questions to the core.
 */
export async function runOnce(
  deps: RunOnceDeps,
  type: PluginType,
  name: string,
  answer: (request: CoreRequest) => Promise<CoreResponse>,
  done: Promise<unknown>,
): Promise<void> {
  const entry = deps.entries[type];
  if (!entry) throw new StartFailure('NOT_RUNNABLE', `${type} instances are not run by this build`);
  const em = deps.orm.em.fork();
  const config = await loadInstanceConfig(em, deps.secrets, type, name);
  if (!config) throw new StartFailure('NO_CONFIGURATION', `the configuration of ${type}/${name} was deleted`);
  const opened = await openInstanceCertificates(
    em,
    deps.secrets,
    pluginTypeDefinitions[type],
    config.settings,
    deps.now(),
  );
  const log = deps.logger.child({ instance: `${type}:${name}`, once: true });
  const thread = await ActorThread.start({
    entry,
    workerData: {
      type,
      name,
      settings: config.settings,
      secrets: config.secrets,
      certificates: opened.certificates,
      storage: deps.storage,
      user_agent: deps.userAgent,
      log_level: actorLogLevel(deps.logger),
      // A run once reports no metrics (its events other than log lines are dropped).
      metrics: false,
    } satisfies ActorStartData,
    startTimeoutMs: deps.childSpec.startTimeoutMs,
    endTimeoutMs: deps.childSpec.endTimeoutMs,
    threads: deps.threads,
    onRequest: (body) => answer(CoreRequest.parse(body)),
    onEvent: (body) => {
      const event = ActorEvent.safeParse(body);
      if (event.success && event.data.type === 'log')
        log[event.data.level](event.data.fields ?? {}, event.data.msg);
    },
    onExit: (end) => {
      if (!end.expected)
        log.error({ reason: end.reason }, 'a run of this worker ended before its work was done');
    },
  });
  void done.finally(() => thread.stop(deps.childSpec.shutdownTimeoutMs));
}
