/**
 * What operators want of each instance, kept with its configuration so every process of a
 * cluster, and every restart, follows it (docs/decisions/service-actions-across-processes-and-restarts.md); and what
 * each process reports of its own instances, so /services can show them all.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { pluginTypeDefinitions, type PluginType } from '../../actors/index.js';
import type { Action, ServiceStatus } from '../lifecycle/states.js';
import { liveNodeCondition } from '../cluster/presence.js';
import { inEntityTx } from '../../storage/sql.js';

/** The channel a process announces a changed configuration or action on (payload `type:name`). */
export const serviceChannel = 'pier_service';

export interface DesiredInstance {
  type: PluginType;
  name: string;
  enabled: boolean;
  /** The last operator action, or null when none was taken since the configuration's `enabled` last changed. */
  action: Action | null;
  /** Grows with each action: a process applies an action whose number it has not applied yet. */
  seq: number;
  /** When the configuration was last saved: a running instance started before it needs a restart. */
  version: string;
}

/** Running is wanted: the last action said so, or no action was taken and the configuration is enabled. */
export function wantsRunning(item: Pick<DesiredInstance, 'enabled' | 'action'>): boolean {
  return item.action === null ? item.enabled : item.action !== 'stop';
}

const versionOf = `to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

function run<T>(em: EntityManager, sql: string, params: unknown[]): Promise<T[]> {
  return inEntityTx(em).all<T>(sql, params);
}

export async function readDesired(em: EntityManager): Promise<DesiredInstance[]> {
  const rows = await run<{
    type: string;
    name: string;
    enabled: boolean;
    service_action: Action | null;
    service_action_seq: number;
    version: string;
  }>(
    em,
    `select type, name, enabled, service_action, service_action_seq,
            ${versionOf} as version
       from plugin_config order by type, name`,
    [],
  );
  return rows
    .filter((r) => r.type in pluginTypeDefinitions)
    .map((r) => ({
      type: r.type as PluginType,
      name: r.name,
      enabled: r.enabled,
      action: r.service_action,
      seq: r.service_action_seq,
      version: r.version,
    }));
}

/** When the configuration was last saved, as `readDesired` gives it. */
export async function readVersion(
  em: EntityManager,
  type: string,
  name: string,
): Promise<string | undefined> {
  const [row] = await run<{ version: string }>(
    em,
    `select ${versionOf} as version from plugin_config where type = ? and name = ?`,
    [type, name],
  );
  return row?.version;
}

/** Keeps an operator's action with the configuration and tells every process; answers its number. */
export async function recordAction(
  em: EntityManager,
  type: PluginType,
  name: string,
  action: Action,
): Promise<number | undefined> {
  const [row] = await run<{ seq: number }>(
    em,
    `update plugin_config set service_action = ?, service_action_seq = service_action_seq + 1
      where type = ? and name = ? returning service_action_seq as seq`,
    [action, type, name],
  );
  await announce(em, type, name);
  return row?.seq;
}

export async function announce(em: EntityManager, type: string, name: string): Promise<void> {
  await run(em, `select pg_notify('${serviceChannel}', ?)`, [`${type}:${name}`]);
}

export interface ProcessState {
  node: number;
  status: ServiceStatus;
  error: string | null;
  state_since: string;
  restart_needed: boolean;
}

/** Replaces this process's reported states with the ones given. */
export async function reportStates(
  em: EntityManager,
  node: number,
  states: (Omit<ProcessState, 'node'> & { type: string; name: string })[],
): Promise<void> {
  await em.transactional(async (tx) => {
    await run(tx as EntityManager, 'delete from service_state where node_id = ?', [node]);
    if (states.length === 0) return;
    await run(
      tx as EntityManager,
      `insert into service_state (node_id, type, name, status, error, state_since, restart_needed)
       select ?, s.type, s.name, s.status, s.error, s.state_since::timestamptz, s.restart_needed
         from jsonb_to_recordset(?::jsonb) as s(type text, name text, status text, error text,
                                              state_since text, restart_needed boolean)`,
      [node, JSON.stringify(states)],
    );
  });
}

/** The states every live process reports, by `type:name`; rows of dead processes are left out. */
export async function processStates(em: EntityManager): Promise<Map<string, ProcessState[]>> {
  const rows = await run<{
    node_id: number;
    type: string;
    name: string;
    status: ServiceStatus;
    error: string | null;
    state_since: Date;
    restart_needed: boolean;
  }>(
    em,
    `select node_id, type, name, status, error, state_since, restart_needed from service_state s
      where ${liveNodeCondition('s.node_id')} order by node_id`,
    [],
  );
  const out = new Map<string, ProcessState[]>();
  for (const r of rows) {
    const key = `${r.type}:${r.name}`;
    out.set(key, [
      ...(out.get(key) ?? []),
      {
        node: r.node_id,
        status: r.status,
        error: r.error,
        state_since: new Date(r.state_since).toISOString(),
        restart_needed: r.restart_needed,
      },
    ]);
  }
  return out;
}
