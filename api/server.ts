/** Starting and stopping one pier process: database, storage check, API, listeners. */
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { makeLogger } from './logger.js';
import { RecentLog } from './server-log/recent-lines.js';
import { buildApp, type BuiltApp } from './app.js';
import type { ApiContext } from './context.js';
import { loadSettings, storageOf } from './resources/settings/service.js';
import type { ProcessOptions } from './process-options.js';
import { authChannel, createApiContext } from './create-context.js';
import { connectDatabase, type Database } from '../storage/connect.js';
import { DatabaseListener } from '../storage/listener.js';
import { OutageLog } from '../storage/outage-log.js';
import { prepareStorage } from '../storage/payloads/prepare.js';
import { legacyPayloads, type StorageFields } from '../storage/payloads/selection.js';
import { Readiness } from './readiness/readiness.js';
import { SetupCode } from './ui-session/setup-code.js';
import { endEventStreams } from './resources/events/routes.js';
import { ConnectionDrain } from '../actors/shared/connection-drain.js';
import type { SharedClock } from '../protocol/clock.js';
import {
  checkSecretKey,
  loadSecretBox,
  type RuntimeOptions,
  scheduleExpiryChecks,
  startRuntime,
} from '../runtime/index.js';
import { listenForMetrics, type MetricsListener, type MetricsSource } from './metrics-listener.js';
import { limits } from '../limits/limits.js';

export interface ServerSettings {
  options: ProcessOptions;
  developerBuild: boolean;
  logger?: Logger | false;
  /**
   * A test's clock, which the API, the main thread's flow and every actor thread read alike
   * (protocol/clock.ts); absent, the real clock.
   */
  clock?: SharedClock;
  /** Bind the HTTP port; false serves only app.inject (tests). */
  listen?: boolean;
  /** Where the recent lines of `logger` are kept (made with makeLogger's keep); one is made with the default logger. */
  recentLog?: RecentLog;
  /** Tests replace actor workers with fixtures, shorten timeouts, or run the sweeps themselves. */
  runtime?: Pick<RuntimeOptions, 'entries' | 'childSpec' | 'timers' | 'events'>;
}

export interface RunningServer {
  app: FastifyInstance;
  built: BuiltApp;
  ctx: ApiContext;
  database: Database;
  /** http://host:port of the listening server, when it listens. */
  url: string | undefined;
  /** http://host:port of the Prometheus endpoint, when METRICS_PORT is not off and it could listen. */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

/**
 * A payload store that cannot be used stops the start; the settings record that chose it is
 * changed from the shell, with the server's own environment, while pier is down.
 */
export const storageRemedy =
  'Change the payload storage with the same environment and data directory: ' +
  '`pier settings set storage_backend=local storage_local_directory=<a writable directory>` ' +
  '(`pier settings show` prints the current values), then start pier again';

export function defaultLogger(recentLog?: RecentLog): Logger {
  return makeLogger(process.env, recentLog?.keep);
}

/**
 * The metrics listener, unless METRICS_PORT is off. A port that is taken does not stop the
 * gateway: messages matter more than their counts; the error line names the variable to change.
 */
async function serveMetrics(
  runtime: { metrics: MetricsSource },
  options: ProcessOptions,
  logger: Logger,
): Promise<MetricsListener | undefined> {
  if (options.metricsPort === null) return undefined;
  const where = { port: options.metricsPort, host: options.metricsHost };
  try {
    return await listenForMetrics(runtime.metrics, where, logger.child({ component: 'metrics' }));
  } catch (error) {
    logger.error(
      { err: error, port: where.port, host: where.host },
      'the metrics endpoint could not listen; set METRICS_PORT to a free port, or METRICS_PORT=off',
    );
    return undefined;
  }
}

export async function startServer(settings: ServerSettings): Promise<RunningServer> {
  const { options } = settings;
  if (settings.developerBuild && options.production) {
    throw new Error('The developer build (pier serve --dev) refuses to start with NODE_ENV=production');
  }
  const recentLog = settings.recentLog ?? new RecentLog();
  const logger = settings.logger === undefined ? defaultLogger(recentLog) : settings.logger;
  const database = await connectDatabase(options, { runMigrations: true });
  if (logger) logger.info({ database: database.description }, 'using the database');
  const closers: (() => Promise<void>)[] = [() => database.close()];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close().catch(() => {});
  };
  try {
    const stored = await loadSettings(database.orm.em.fork());
    const storageInUse = storageOf(stored);
    await prepareStorage(storageInUse, options.dataDir).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}. ${storageRemedy}`, { cause: error });
    });
    if (logger) tellLegacyPayloads(logger, storageInUse, options.dataDir);

    const secrets = await loadSecretBox(options.dataDir, options.secretKey);
    await checkSecretKey(database.orm.em.fork(), secrets);
    const ctx = createApiContext({
      orm: database.orm,
      options,
      secrets,
      storageInUse,
      developerBuild: settings.developerBuild,
      readiness: new Readiness(),
      recentLog,
      ...(settings.clock ? { now: () => settings.clock!.now() } : {}),
    });
    // A fresh install's first administrator can be made in the browser with this code.
    ctx.setupCode = await SetupCode.prepare(
      database.orm,
      options.dataDir,
      (error) =>
        logger &&
        logger.warn({ err: error }, 'no setup code for the first administrator: use pier users passwd'),
    );
    closers.push(async () => ctx.apiTokens.close());
    closers.push(() => ctx.apiTokens.flushUsage());

    const quiet = logger || pino({ level: 'silent' });
    const expiryChecks = scheduleExpiryChecks({
      em: () => database.orm.em.fork() as EntityManager,
      now: ctx.now,
      logger: quiet,
    });
    closers.push(() => expiryChecks.stop());

    const outage = new OutageLog(quiet.child({ component: 'database' }));
    const listener = new DatabaseListener(database.url, quiet, outage);
    listener.on(authChannel, () => {
      ctx.apiTokens.invalidate();
      ctx.jwt.invalidate();
    });
    await listener.start();
    closers.push(() => listener.close());

    // The HTTP port opens before the message flow starts: meanwhile GET /ready answers 503
    // `starting` and other requests 503 NOT_READY, rather than a refused connection.
    const built = await buildApp(ctx, { logger });
    const connections = new ConnectionDrain(built.app.server);
    closers.push(() => built.app.close());
    let url: string | undefined;
    if (settings.listen !== false) {
      url = await built.app.listen({ port: options.httpPort, host: options.httpHost });
    } else {
      await built.app.ready();
    }

    const runtime = await startRuntime({
      orm: database.orm,
      databaseUrl: database.url,
      dataDir: options.dataDir,
      shutdownTimeoutMs: options.shutdownTimeoutMs,
      secrets: ctx.secrets,
      logger: quiet,
      now: ctx.now,
      ...(settings.clock ? { clock: settings.clock.buffer } : {}),
      outage,
      listener,
      publicUrl: options.publicUrl,
      settings: stored,
      receiptUrlBase: options.publicUrlGiven ? options.publicUrl : null,
      countMetrics: options.metricsPort !== null,
      ...settings.runtime,
    });
    ctx.runtime = runtime;
    // When the stop's deadline (PIER_SHUTDOWN_TIMEOUT) falls, set by close() below.
    let stopBy: number | undefined;
    // Closed first (closers run in reverse): the flow drains while the API still answers
    // GET /ready with `draining`; the listener closes after it, the database last.
    closers.push(() => runtime.close(stopBy === undefined ? undefined : Math.max(0, stopBy - Date.now())));
    const metricsUrl = await serveMetrics(runtime, options, quiet);
    if (metricsUrl) closers.push(metricsUrl.close);
    ctx.readiness.ready();
    /**
     * The drain (docs/decisions/a-stop-drains-within-its-deadline.md): GET /ready answers 503
     * `draining` and new requests 503 NOT_READY while the port stays open; event streams get a
     * final event and end; connections without a request in hand end once silent for a second
     * (ConnectionDrain). Requests in hand
     * (an upload) finish and commit before the message flow stops, and the flow's actors drain
     * before the listener and the database close. Whatever is open at the deadline is ended.
     */
    const close = async () => {
      stopBy = Date.now() + options.shutdownTimeoutMs;
      ctx.readiness.drain();
      endEventStreams(ctx, limits.notReadyRetryAfterSeconds);
      connections.start();
      // The flow's stop needs a moment of its own even when a request held the whole deadline.
      await connections.settled(stopBy - Math.min(limits.flowStopReserveMs, options.shutdownTimeoutMs / 3));
      await closeAll();
    };
    return { app: built.app, built, ctx, database, url, metricsUrl: metricsUrl?.url, close };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** An install from before the data directory held payloads keeps them where they are, and is told how to move. */
function tellLegacyPayloads(logger: Logger, storage: StorageFields, dataDir: string): void {
  const legacy = legacyPayloads(storage, dataDir);
  if (!legacy) return;
  const moveTo = path.join(dataDir, 'payloads');
  logger.warn(
    { directory: legacy, moveTo },
    `payloads are kept in ${legacy}, where pier kept them before they moved into the data directory; ` +
      `to move them, stop pier, run \`mv ${legacy} ${moveTo}\` and start it again ` +
      `(or keep them there: \`pier settings set storage_local_directory=${legacy}\`)`,
  );
}
