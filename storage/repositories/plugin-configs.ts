/** Plugin configurations as the API checks and lists them beyond loading entities. */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Names of the configurations of one type, in name order. */
export async function configNamesOfType(em: EntityManager, type: string): Promise<string[]> {
  const rows = await em
    .getConnection()
    .execute<{ name: string }[]>('select name from plugin_config where type = ? order by name', [type]);
  return rows.map((r) => r.name);
}

/** The configuration whose name equals this one ignoring case, of any type (names are unique so). */
export async function configNamedIgnoringCase(
  em: EntityManager,
  name: string,
): Promise<{ type: string; name: string } | undefined> {
  const [row] = await em
    .getConnection()
    .execute<{ type: string; name: string }[]>(
      'select type, name from plugin_config where lower(name) = lower(?)',
      [name],
      'all',
      em.getTransactionContext(),
    );
  return row;
}

/**
 * Forgets the configuration's last service action (in the entity manager's transaction): a
 * changed `enabled` is the operator's latest word. Not an entity field, as the supervisor's
 * statements own it (runtime/supervisor/desired-state.ts).
 */
export async function clearServiceAction(em: EntityManager, id: number): Promise<void> {
  await em
    .getConnection()
    .execute(
      'update plugin_config set service_action = null where id = ?',
      [id],
      'run',
      em.getTransactionContext(),
    );
}
