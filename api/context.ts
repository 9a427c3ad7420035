/** What the API's routes and services share within one process. Built once by the server. */
import type { SetupCode } from './ui-session/setup-code.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProcessOptions } from './process-options.js';
import type { AuditRecorder } from './audit/recorder.js';
import type { Runtime, SecretBox } from '../runtime/index.js';
import type { Orm } from '../storage/db.js';
import type { ApiTokenCredential } from './auth/api-token-credential.js';
import type { JwtCredential } from './auth/jwt-credential.js';
import type { OidcDirectory } from './auth/oidc-directory.js';
import type { StorageSelection } from './schemas/settings.js';
import type { OperatorActionLog } from './operator-actions.js';
import type { Readiness } from './readiness/readiness.js';
import type { RecentLog } from './server-log/recent-lines.js';
export interface ApiContext {
  orm: Orm;
  options: ProcessOptions;
  audit: AuditRecorder;
  /** Audit events of operator actions (start, stop, uploads by hand …), written in groups. */
  operatorActions: OperatorActionLog;
  /** Encrypts and decrypts secrets stored in the database. */
  secrets: SecretBox;
  apiTokens: ApiTokenCredential;
  /** Identity-provider JWTs as a credential (docs/api/authentication.md). */
  jwt: JwtCredential;
  /** The identity providers, their discovery documents and keys. */
  identity: OidcDirectory;
  /** The payload storage this process started with (docs/api/settings.md storage_in_use). */
  storageInUse: StorageSelection;
  /** Accepts requests without Authorization as `developer` (docs/api/authentication.md). */
  developerBuild: boolean;
  /** Tells every pier process that tokens or accounts changed, so caches are dropped. */
  announceAuthChange(em: EntityManager): Promise<void>;
  now(): Date;
  /** Starting, ready or draining (GET /ready, and the gate that answers 503 meanwhile). */
  readiness: Readiness;
  /** The message flow and plugin instances; absent in the CLI, which runs no actors. */
  runtime?: Runtime;
  /** The server's recent log lines for GET /server-log; absent in the CLI. */
  recentLog?: RecentLog;
  /** A fresh install's one-time setup code (api/ui-session/setup-code.ts); null once a user exists. */
  setupCode?: SetupCode | null;
}

/** The runtime of a server process; routes that need it are only registered by the server. */
export function runtimeOf(ctx: ApiContext): Runtime {
  if (!ctx.runtime) throw new Error('This process runs no message flow');
  return ctx.runtime;
}

/** A fresh entity manager for one unit of work. */
export function freshEm(ctx: ApiContext): EntityManager {
  return ctx.orm.em.fork() as EntityManager;
}

/** Runs `work` in one transaction; the change and its audit events commit together. */
export async function inTransaction<T>(ctx: ApiContext, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return freshEm(ctx).transactional((em) => work(em as EntityManager));
}
