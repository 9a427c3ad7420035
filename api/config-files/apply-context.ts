/**
 * What applying a file shares: the services run inside the apply's one transaction (each
 * service's own transaction becomes a savepoint in it), and a refusal of one record is kept
 * by its path in the file while the others are still tried, so one answer lists every problem.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../auth/caller.js';
import type { ApiContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { Orm } from '../../storage/db.js';

export interface ApplyRun {
  /** The context the services are called with: its entity managers join the transaction. */
  ctx: ApiContext;
  /** A fresh entity manager in the transaction, for reading what the services wrote. */
  em(): EntityManager;
  caller: Caller;
  env: NodeJS.ProcessEnv;
  prune: boolean;
  problems: Record<string, string>;
}

export function applyRun(
  ctx: ApiContext,
  tx: EntityManager,
  caller: Caller,
  env: NodeJS.ProcessEnv,
  prune: boolean,
): ApplyRun {
  const em = () => tx.fork({ keepTransactionContext: true }) as EntityManager;
  const orm = { em: { fork: em } } as unknown as Orm;
  return { ctx: { ...ctx, orm }, em, caller, env, prune, problems: {} };
}

/**
 * Runs one service call for the record at `path`. A refusal (an ApiError) is recorded, its
 * details under the file's names for the fields (`rename`), and the apply goes on.
 */
export async function attempt<T>(
  run: ApplyRun,
  path: string,
  work: () => Promise<T>,
  rename: (field: string) => string = (f) => f,
): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const details = Object.entries(error.details ?? {}).filter(([, v]) => typeof v === 'string');
    if (details.length === 0) run.problems[path] ??= error.message;
    for (const [field, text] of details) {
      const where = field === '_form' ? path : `${path}.${rename(field)}`;
      run.problems[where] ??= String(text);
    }
    return undefined;
  }
}

/** A field of the API named by id, as the file names it: `partner_certificate_id` → `partner_certificate`. */
export function certificateFieldName(field: string): string {
  return field.replace(/_certificate_id$/, '_certificate').replace(/_certificate_ids$/, '_certificates');
}
