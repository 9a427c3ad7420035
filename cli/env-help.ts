/** The environment variables each command reads, for its --help (they match README "Configuration"). */
import type { Command } from 'commander';

const database = [
  ['DATABASE_URL', 'PostgreSQL URL; without it, the embedded PostgreSQL under PIER_DATA_DIR'],
  ['PIER_DATA_DIR', 'data directory (embedded database, secret.key, payloads); default ./data'],
  ['PIER_EMBEDDED_PG_PORT', 'port to start the embedded PostgreSQL on when it is not running; default 54329'],
] as const;
const secrets = [['PIER_SECRET_KEY', 'key of secrets at rest; default <data dir>/secret.key']] as const;
const audit = [['AUDIT_KEY', 'HMAC key of the audit hash chain; without it, events are unhashed']] as const;
const server = [
  ['HTTP_PORT', 'port of the API and web UI; default 8080'],
  ['HTTP_HOST', 'address to bind; default 0.0.0.0'],
  ['ALLOWED_ORIGINS', 'comma-separated origins browser pages may call the API from'],
  ['PUBLIC_URL', 'address users reach pier at; default http://localhost:<HTTP_PORT>'],
  ['LOG_LEVEL', 'pino log level; default info'],
  ['LOG_FORMAT', 'json or pretty; pretty by default on a terminal, json otherwise'],
  ['NODE_ENV', 'production refuses --dev'],
  ['PIER_SHUTDOWN_TIMEOUT', 'seconds a stop lets work in hand finish; default 30'],
] as const;

/** What a command that opens the database reads; `serve` reads the server's variables as well. */
export const environment = {
  database: [...database],
  session: [...database, ...secrets, ...audit],
  serve: [...database, ...secrets, ...audit, ...server],
};

export function withEnvironment(command: Command, vars: readonly (readonly [string, string])[]): Command {
  const width = Math.max(...vars.map(([name]) => name.length));
  const lines = vars.map(([name, meaning]) => `  ${name.padEnd(width)}  ${meaning}`);
  return command.addHelpText('after', `\nEnvironment:\n${lines.join('\n')}\n`);
}
