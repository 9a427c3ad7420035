/**
 * The process's log: JSON lines with ISO-8601 UTC times (`"time":"2026-11-23T03:04:05.678Z"`),
 * so a line read at 3 a.m. says when without arithmetic, or with LOG_FORMAT=pretty (the default
 * on a terminal) one coloured line per entry (pino-pretty, in this thread so nothing is lost at
 * exit). Fields that could hold a secret are censored wherever they appear, as a last guard:
 * no log line is meant to carry them in the first place.
 */
import { createRequire } from 'node:module';
import { pino, stdTimeFunctions, type Logger, type LoggerOptions } from 'pino';
import type pretty from 'pino-pretty';

export type LogFormat = 'json' | 'pretty';

/**
 * Field names censored where they appear at the top level of a line, and the request headers
 * that carry credentials. Not one level down (`*.password`): fast-redact's wildcards made every
 * line four times as dear (benchmarks/history/2026-11-23-logs-for-3-a-m-what-the-new-log-lines-cost.md).
 */
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  'cookie',
  'password',
  'passphrase',
  'private_key',
  'client_secret',
  'http_basic_password',
  'http_headers',
  'secret',
  'token',
];

/**
 * LOG_FORMAT, by default readable lines when standard output is a terminal (a person watches)
 * and JSON lines otherwise (a service manager, a pipe, a log collector).
 */
export function logFormatOf(env: NodeJS.ProcessEnv, terminal = process.stdout.isTTY === true): LogFormat {
  const format = env.LOG_FORMAT ?? (terminal ? 'pretty' : 'json');
  if (format !== 'json' && format !== 'pretty') {
    throw new Error(`LOG_FORMAT must be json or pretty, not "${format}"`);
  }
  return format;
}

/**
 * `keep`, when given, sees every line as written, after its redaction: the server keeps its
 * recent lines for the web UI's server log (api/server-log/recent-lines.ts).
 */
export function loggerOptions(env: NodeJS.ProcessEnv, keep?: (line: string) => string): LoggerOptions {
  return {
    level: env.LOG_LEVEL ?? 'info',
    timestamp: stdTimeFunctions.isoTime,
    redact: { paths: redactPaths, censor: '[redacted]' },
    ...(keep ? { hooks: { streamWrite: keep } } : {}),
  };
}

/** The logger `pier serve` writes to standard output. */
export function makeLogger(env: NodeJS.ProcessEnv = process.env, keep?: (line: string) => string): Logger {
  const options = loggerOptions(env, keep);
  if (logFormatOf(env) === 'json') return pino(options);
  // Loaded only for readable lines: services and tests write JSON, and skip its 30 modules (25 ms).
  const prettyStream = createRequire(import.meta.url)('pino-pretty') as typeof pretty;
  return pino(
    options,
    prettyStream({
      colorize: process.stdout.isTTY === true,
      sync: true,
      translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l o',
      ignore: 'pid,hostname',
    }),
  );
}
