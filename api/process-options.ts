/**
 * Process options read from the environment, in one place with their defaults and units.
 * Settings that operators change at run time live in the database (the settings record);
 * these are the ones a process needs before it can reach the database.
 */
import path from 'node:path';

export interface ProcessOptions {
  /** TCP port of the API and web UI. */
  httpPort: number;
  /** Address the HTTP server binds to. */
  httpHost: string;
  /** PostgreSQL connection URL; undefined starts the embedded server under dataDir. */
  databaseUrl: string | undefined;
  /** Where pier keeps its own files (embedded database, generated keys). */
  dataDir: string;
  /** Loopback port of the embedded PostgreSQL (used only without DATABASE_URL). */
  embeddedPostgresPort: number;
  /** Key that encrypts secrets at rest; undefined uses <dataDir>/secret.key. */
  secretKey: string | undefined;
  /** Key for the audit hash chain (HMAC-SHA-256); undefined writes unhashed events. */
  auditKey: string | undefined;
  /** Origins a browser page may call the API from (CORS); empty allows none. */
  allowedOrigins: string[];
  /** Base URL the service is reached at, for links and redirect URIs. */
  publicUrl: string;
  /** PUBLIC_URL was set (publicUrl is not the localhost fallback, which no partner can reach). */
  publicUrlGiven: boolean;
  production: boolean;
  /** Port of the Prometheus endpoint (`GET /metrics`); null when METRICS_PORT=off. */
  metricsPort: number | null;
  /** Address the metrics endpoint binds to; loopback unless the operator opens it. */
  metricsHost: string;
  /**
   * Milliseconds a stopping process gives work in hand (PIER_SHUTDOWN_TIMEOUT, in seconds):
   * deliveries and received messages under way finish within it; the rest is given back.
   */
  shutdownTimeoutMs: number;
}

const defaults = {
  httpPort: 8080,
  httpHost: '0.0.0.0',
  dataDir: './data',
  embeddedPostgresPort: 54329,
  /** The port OpenTelemetry's Prometheus exporter uses; Prometheus lists it as taken by exporters. */
  metricsPort: 9464,
  metricsHost: '127.0.0.1',
  /** Seconds (PIER_SHUTDOWN_TIMEOUT). */
  shutdownTimeout: 30,
} as const;

function metricsPortOf(value: string | undefined): number | null {
  if (value === undefined || value === '') return defaults.metricsPort;
  if (value === 'off') return null;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`METRICS_PORT must be a port number from 0 to 65535 or "off", not "${value}"`);
  return port;
}

function shutdownTimeoutMs(value: string | undefined): number {
  if (!value) return defaults.shutdownTimeout * 1000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new Error(
      `PIER_SHUTDOWN_TIMEOUT must be a positive number of seconds, at most 3600, not "${value}"`,
    );
  }
  return Math.round(seconds * 1000);
}

export function readProcessOptions(env: NodeJS.ProcessEnv = process.env): ProcessOptions {
  const httpPort = env.HTTP_PORT ? Number(env.HTTP_PORT) : defaults.httpPort;
  if (!Number.isInteger(httpPort) || httpPort < 0 || httpPort > 65535) {
    throw new Error(`HTTP_PORT must be a port number from 0 to 65535, not "${env.HTTP_PORT}"`);
  }
  const httpHost = env.HTTP_HOST || defaults.httpHost;
  return {
    httpPort,
    httpHost,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.PIER_DATA_DIR || defaults.dataDir),
    embeddedPostgresPort: env.PIER_EMBEDDED_PG_PORT
      ? Number(env.PIER_EMBEDDED_PG_PORT)
      : defaults.embeddedPostgresPort,
    secretKey: env.PIER_SECRET_KEY || undefined,
    auditKey: env.AUDIT_KEY || undefined,
    allowedOrigins: (env.ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    publicUrl: (env.PUBLIC_URL || `http://localhost:${httpPort}`).replace(/\/+$/, ''),
    publicUrlGiven: Boolean(env.PUBLIC_URL),
    production: env.NODE_ENV === 'production',
    metricsPort: metricsPortOf(env.METRICS_PORT),
    metricsHost: env.METRICS_HOST || defaults.metricsHost,
    shutdownTimeoutMs: shutdownTimeoutMs(env.PIER_SHUTDOWN_TIMEOUT),
  };
}
