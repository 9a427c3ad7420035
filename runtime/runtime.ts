/**
 * The runtime of one pier process: its presence in the cluster, the payload store, the
 * dispatcher and the supervisor with its actors. Runs without the API (`runtime/` never
 * imports `api/`); the server starts it after the database and stops it before.
 */
import type { Logger } from 'pino';
import { workerEntries, type PluginType } from '../actors/index.js';
import type { Orm } from '../storage/db.js';
import type { DatabaseListener } from '../storage/listener.js';
import { OutageLog } from '../storage/outage-log.js';
import { openPayloadStore } from '../storage/payloads/open-store.js';
import { selectionOf } from '../storage/payloads/selection.js';
import type { PayloadStore } from '../storage/payloads/store.js';
import { identification, serviceVersion } from './version.js';
import { PierMetrics } from './metrics/registry.js';
import { processGauges } from './metrics/process-gauges.js';
import { clusterGauges } from './metrics/cluster-gauges.js';
import { storeTiming } from '../protocol/metrics/store-timing.js';
import { timedStore } from '../storage/payloads/timed-store.js';
import { Notifications } from './alerts/notifications.js';
import { hostKeyReports } from './alerts/host-key-alerts.js';
import { storageReports } from './alerts/storage-alerts.js';
import { PartnerAlerts } from './alerts/partner-alerts.js';
import { As2Core } from './as2/as2-core.js';
import { CemService } from './cem/cem-service.js';
import { scheduleCemTicks } from './cem/schedule.js';
import { receiptsOverdue } from '../flow/commands/as2-records.js';
import { NodePresence } from './cluster/presence.js';
import { watchFailovers } from './cluster/failover-watch.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { AcknowledgementSweep } from './edi/acknowledgement-sweep.js';
import { HistoryFeed, type StreamLimits } from './events/history-feed.js';
import { readWorkNotice, workChannel } from '../flow/tx.js';
import type { SecretBox } from './secrets/secret-box.js';
import { childSpecDefaults, type ChildSpec } from './supervisor/child-spec.js';
import type { ActorCore } from './supervisor/core-port.js';
import { serviceChannel } from './supervisor/desired-state.js';
import { Supervisor } from './supervisor/supervisor.js';

export interface RuntimeOptions {
  orm: Orm;
  databaseUrl: string;
  secrets: SecretBox;
  logger: Logger;
  now: () => Date;
  /**
   * The shared cell `now` reads when it is a test's clock (protocol/clock.ts): the actor threads
   * are given it and read the same time. Absent, `now` is the real clock and so is theirs.
   */
  clock?: SharedArrayBuffer;
  /** Tells a database outage once for the process (storage/outage-log.ts); made here when not given. */
  outage?: OutageLog;
  listener: DatabaseListener;
  /** PUBLIC_URL only when it was set: the host of the derived asynchronous receipt address. */
  receiptUrlBase?: string | null;
  /** The process's data directory: the default local payload store is under it. */
  dataDir: string;
  /** How long close() lets work in hand finish (PIER_SHUTDOWN_TIMEOUT); each instance's own shutdown time without it. */
  shutdownTimeoutMs?: number;
  /** Settings read at start (docs/api/settings.md). */
  settings: {
    storage_backend: 'local' | 's3';
    storage_local_directory: string;
    storage_s3_bucket: string;
    storage_s3_region: string;
    storage_s3_endpoint: string;
    delivery_max_dispatches: number;
    identification_hide_version: boolean;
  };
  /** Worker entries by type; tests replace a type's worker with a fixture. */
  entries?: Partial<Record<PluginType, URL>>;
  childSpec?: Partial<ChildSpec>;
  /** Run the dispatcher's sweeps every second (tests with their own clock turn this off). */
  timers?: boolean;
  /** PUBLIC_URL, to make alert links absolute for notification receivers. */
  publicUrl?: string;
  /** False when the process exports no metrics (METRICS_PORT=off): nothing is counted. */
  countMetrics?: boolean;
  /** Bounds of the event stream (tests shorten the keep-alive interval). */
  events?: Partial<StreamLimits>;
}

export interface Runtime {
  node: number;
  dispatcher: Dispatcher;
  /** Functional acknowledgements of EDI interchanges: sent, matched, watched (runtime/edi/). */
  acknowledgements: AcknowledgementSweep;
  as2: As2Core;
  /** Certificate exchanges with partners (CEM): the API's operations and the schedule's tick. */
  cem: CemService;
  supervisor: Supervisor;
  payloads: PayloadStore;
  /** The notification log's sending side (the notifiers ask it). */
  notifications: Notifications;
  /** New message history lines, from every process (the event stream's source). */
  history: HistoryFeed;
  /** User-Agent of requests this process sends (docs/api/settings.md). */
  userAgent: string;
  /** The process's Prometheus registry: what its threads counted, its gauges (GET /metrics). */
  metrics: PierMetrics;
  /** Stops the flow and the actors; `withinMs`: what is left of the stop's deadline (PIER_SHUTDOWN_TIMEOUT when left out). */
  close(withinMs?: number): Promise<void>;
  /** Actor threads that did not end when terminated (after close: the process cannot end by itself). */
  unendedThreads(): number;
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  // Every thread opens the same store from this selection (credentials come from the
  // environment, which worker threads share).
  const storage = selectionOf(options.settings, options.dataDir);
  const outage = options.outage ?? new OutageLog(options.logger.child({ component: 'database' }));
  const presence = new NodePresence(options.databaseUrl, options.logger, outage);
  await presence.start();
  const metrics = new PierMetrics({ version: serviceVersion, counting: options.countMetrics ?? true });
  watchFailovers(options.databaseUrl, {
    orm: options.orm,
    now: options.now,
    logger: options.logger,
    metrics,
  });
  const payloads = metrics.counting
    ? timedStore(openPayloadStore(storage), storeTiming(metrics, storage.backend))
    : openPayloadStore(storage);
  // The dispatcher pokes the supervisor, which answers through the dispatcher.
  const pokes = { to: (_target: string) => {} };
  const dispatcher = new Dispatcher({
    orm: options.orm,
    node: presence.nodeId,
    now: options.now,
    logger: options.logger.child({ component: 'dispatcher' }),
    maxDispatches: options.settings.delivery_max_dispatches,
    onWork: (targets) => targets.forEach((t) => pokes.to(t)),
    ackDeadlines: receiptsOverdue,
    outage,
    metrics,
    presenceSettled: () => presence.settled(),
  });
  const acknowledgements = new AcknowledgementSweep({
    orm: options.orm,
    store: payloads,
    dispatcher,
    now: options.now,
    logger: options.logger.child({ component: 'acknowledgements' }),
    outage,
  });
  const userAgent = identification(options.settings.identification_hide_version);
  const cem = new CemService({
    orm: options.orm,
    payloads,
    dispatcher,
    now: options.now,
    logger: options.logger.child({ component: 'cem' }),
  });
  const as2 = new As2Core(options.orm, options.secrets, options.now, options.receiptUrlBase ?? null, cem);
  const notifications = new Notifications(
    options.orm,
    options.now,
    options.publicUrl ?? '',
    options.logger.child({ component: 'notifications' }),
    metrics,
  );
  const core: ActorCore = {
    releaseHeldBy: (target, name, reason) => dispatcher.releaseHeldBy(target, name, reason),
    as2: (_instance, request) => as2.answer(request),
    notify: (instance, request) => notifications.answer(instance, request),
  };
  const partners = new PartnerAlerts({
    orm: options.orm,
    now: options.now,
    logger: options.logger.child({ component: 'partners' }),
  });
  const supervisor = new Supervisor({
    orm: options.orm,
    secrets: options.secrets,
    core,
    logger: options.logger.child({ component: 'supervisor' }),
    now: options.now,
    storage,
    userAgent,
    entries: options.entries ?? workerEntries,
    childSpec: { ...childSpecDefaults, ...options.childSpec },
    node: presence.nodeId,
    flowDatabaseUrl: options.databaseUrl,
    ...(options.clock ? { clock: options.clock } : {}),
    outage,
    onStorage: storageReports({
      orm: options.orm,
      now: options.now,
      logger: options.logger.child({ component: 'storage' }),
      storage,
    }),
    metrics,
    onReach: (instance, ok, partner, error) => partners.report(instance, ok, partner, error),
    onHostKeyChanged: hostKeyReports({
      orm: options.orm,
      now: options.now,
      logger: options.logger.child({ component: 'host-keys' }),
    }),
  });
  processGauges(metrics, supervisor, options.orm, () => dispatcher.flowPool);
  clusterGauges(metrics, options.orm, () => presence.exportsClusterMetrics());
  pokes.to = (target) => supervisor.poke(target);
  options.listener.on(workChannel, (payload) => {
    const notice = readWorkNotice(payload);
    if (notice.node !== presence.nodeId) dispatcher.announced(notice.target);
  });
  const history = new HistoryFeed(
    options.orm,
    options.listener,
    options.logger.child({ component: 'events' }),
    options.events,
  );
  metrics.gauge(
    'pier_sse_subscribers',
    "Clients following this process's message history stream (GET /api/v1/events)",
    [],
    (set) => set({}, history.subscriberCount),
  );
  try {
    await dispatcher.recover();
    await supervisor.startAll();
    supervisor.follow((channel, handler) => options.listener.on(channel, handler), serviceChannel);
  } catch (error) {
    await supervisor.stopAll();
    await partners.close();
    await dispatcher.stop();
    await presence.close();
    throw error;
  }
  let cemTicks: { stop(): Promise<void> } | undefined;
  if (options.timers !== false) {
    dispatcher.startTimers();
    cemTicks = scheduleCemTicks(cem, options.logger.child({ component: 'cem' }), { outage });
    acknowledgements.start();
  }
  return {
    node: presence.nodeId,
    dispatcher,
    acknowledgements,
    as2,
    cem,
    supervisor,
    payloads,
    history,
    notifications,
    userAgent,
    metrics,
    close: async (withinMs?: number) => {
      await cemTicks?.stop();
      await notifications.close();
      await supervisor.stopAll(withinMs ?? options.shutdownTimeoutMs);
      await partners.close();
      await acknowledgements.stop();
      await dispatcher.stop();
      await presence.close();
    },
    unendedThreads: () => supervisor.unendedThreads,
  };
}
