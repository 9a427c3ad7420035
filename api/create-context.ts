/**
 * Assembling one process's shared services around an open database: audit recorder,
 * API-token checking, and the announcements that keep caches of several processes in step.
 * Used by the server and by the CLI, so both write the same audit events the same way.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiTokenCredential, type ApiTokenCredentialOptions } from './auth/api-token-credential.js';
import type { ApiContext } from './context.js';
import { JwtCredential } from './auth/jwt-credential.js';
import { OidcDirectory, type OidcDirectoryOptions } from './auth/oidc-directory.js';
import type { StorageSelection } from './schemas/settings.js';
import { OperatorActionLog } from './operator-actions.js';
import { Readiness } from './readiness/readiness.js';
import type { RecentLog } from './server-log/recent-lines.js';
import type { ProcessOptions } from './process-options.js';
import { AuditRecorder } from './audit/recorder.js';
import type { SecretBox } from '../runtime/index.js';
import type { Orm } from '../storage/db.js';
import { announceAtCommit } from '../storage/repositories/database.js';

/** NOTIFY channel telling every process that tokens, accounts, users or identity providers changed. */
export const authChannel = 'pier_auth';

export interface CoreOptions {
  orm: Orm;
  options: ProcessOptions;
  secrets: SecretBox;
  storageInUse: StorageSelection;
  developerBuild: boolean;
  now?: () => Date;
  tokenCache?: Partial<ApiTokenCredentialOptions>;
  identity?: Partial<OidcDirectoryOptions>;
  /** The server's, which starts at `starting`; any other context is ready at once. */
  readiness?: Readiness;
  /** The server's recent log lines (GET /server-log); other contexts keep none. */
  recentLog?: RecentLog;
}

export function createApiContext(core: CoreOptions): ApiContext {
  const now = core.now ?? (() => new Date());
  const apiTokens = new ApiTokenCredential(core.orm, core.tokenCache, now);
  const identity = new OidcDirectory(core.orm, core.secrets, core.identity);
  const audit = new AuditRecorder(core.options.auditKey);
  return {
    orm: core.orm,
    options: core.options,
    audit,
    operatorActions: new OperatorActionLog(core.orm, audit),
    secrets: core.secrets,
    apiTokens,
    identity,
    jwt: new JwtCredential(core.orm, identity, apiTokens, now),
    storageInUse: core.storageInUse,
    developerBuild: core.developerBuild,
    announceAuthChange: (em: EntityManager) => announceAtCommit(em, authChannel),
    readiness: core.readiness ?? new Readiness('ready'),
    ...(core.recentLog ? { recentLog: core.recentLog } : {}),
    now,
  };
}
