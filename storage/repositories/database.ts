/** Statements about the database rather than a table: a liveness probe, announcements to every process. */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Resolves when the database answers a trivial statement; rejects when it cannot. */
export async function ping(em: EntityManager): Promise<void> {
  await em.getConnection().execute('select 1');
}

/**
 * NOTIFY on `channel`, in the entity manager's transaction: PostgreSQL sends it at commit, so
 * no process hears of a change that was rolled back.
 */
export async function announceAtCommit(em: EntityManager, channel: string, payload = ''): Promise<void> {
  await em
    .getConnection()
    .execute('select pg_notify(?, ?)', [channel, payload], 'all', em.getTransactionContext());
}
