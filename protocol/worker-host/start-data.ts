/** What an actor thread is started with (its workerData), checked on arrival. */
import { z } from 'zod';
import { StoreSelection } from '../payload-wire.js';

/** A certificate a setting names, opened for the actor: what a TLS server is given. */
export const StartCertificate = z.object({
  /** The certificate, then the issuers the store holds (root left out), as PEM. */
  chain_pem: z.string(),
  /** PKCS#8 PEM; lives only in the thread's memory, like the opened secrets. */
  private_key_pem: z.string(),
});
export type StartCertificate = z.infer<typeof StartCertificate>;

/** Pino's levels, as the process's logger may be set (LOG_LEVEL). */
export const LogLevel = z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']);
export type LogLevel = z.infer<typeof LogLevel>;

/** Pino's level numbers: a line is written when its level's number is at least the logger's. */
export const pinoLevelNumbers: Record<LogLevel, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

/** A logger's level for an actor's start data: `trace` (every line posted) when it is not one of pino's. */
export const actorLogLevel = (logger: { level: string }): LogLevel => {
  const level = LogLevel.safeParse(logger.level);
  return level.success ? level.data : 'trace';
};

export const ActorStartData = z.object({
  type: z.string(),
  name: z.string(),
  settings: z.record(z.string(), z.unknown()),
  /** Opened write-only values; they live only in the thread's memory. */
  secrets: z.record(z.string(), z.unknown()),
  /** By setting name: the certificates the settings name (certificateFields), opened. */
  certificates: z.record(z.string(), StartCertificate).default({}),
  storage: StoreSelection,
  /** User-Agent of requests the actor sends (docs/api/settings.md identification_hide_version). */
  user_agent: z.string(),
  /**
   * The process's log level (LOG_LEVEL): the thread drops lines below it itself instead of posting
   * each to the main thread to be dropped there (at `warn`, the two lines of every message).
   */
  log_level: LogLevel.default('trace'),
  /** False when the process exports no metrics (METRICS_PORT=off): the thread then counts nothing. */
  metrics: z.boolean().default(true),
  /**
   * For a target or a source: the database its flow commands run on (flow/actor-commands.ts),
   * on connections of its own. Every target and source of a runtime gets it; only a supervisor
   * started without a node gives none, and its targets and sources then refuse to start.
   */
  flow: z
    .object({ database_url: z.string(), node: z.number().int(), application_name: z.string().max(63) })
    .optional(),
  /**
   * A test's clock (protocol/clock.ts), read by the thread's flow commands; absent, the real
   * clock. Shared memory, not a copy: the test moves it and every thread sees the move.
   */
  clock: z.instanceof(SharedArrayBuffer).optional(),
  /**
   * Set on an instance's second and later threads, which its first one started
   * (actors/shared/instance-threads.ts: a receiver's listeners, a file writer's or an AS2
   * sender's threads): its number, 2 and up. Absent on every thread the supervisor starts.
   */
  thread: z.number().int().min(2).optional(),
});
export type ActorStartData = z.infer<typeof ActorStartData>;
