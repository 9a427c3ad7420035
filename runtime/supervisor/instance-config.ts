/**
 * Reading stored plugin configurations as instances start with them: settings with
 * current defaults filled in, write-only values opened. Shared by the API (which never
 * returns the opened values) and the supervisor (which hands them to the actor thread).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { pluginTypeDefinitions, type PluginType, type PluginTypeDefinition } from '../../actors/index.js';
import type { InstanceConfig } from '../../actors/shared/definition.js';
import { PluginConfigSchema, type PluginConfig } from '../../storage/entities/plugin-config.js';
import type { SecretBox } from '../secrets/secret-box.js';

/** Settings of a stored configuration, with defaults for settings added since it was saved. */
export function settingsOf(def: PluginTypeDefinition, row: PluginConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(def.fields)) out[key] = row.settings[key] ?? def.defaults[key];
  return out;
}

export function openSecrets(secrets: SecretBox, row: PluginConfig): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row.secrets).map(([k, sealed]) => [k, JSON.parse(secrets.openText(sealed)) as unknown]),
  );
}

export interface StoredInstance {
  type: PluginType;
  name: string;
  enabled: boolean;
}

/** Every configured instance, by type and name. */
export async function listInstances(em: EntityManager): Promise<StoredInstance[]> {
  const rows = await em.find(PluginConfigSchema, {}, { orderBy: { type: 'asc', name: 'asc' } });
  return rows
    .filter((r) => r.type in pluginTypeDefinitions)
    .map((r) => ({ type: r.type as PluginType, name: r.name, enabled: r.enabled }));
}

export async function loadInstanceConfig(
  em: EntityManager,
  secrets: SecretBox,
  type: PluginType,
  name: string,
): Promise<InstanceConfig | undefined> {
  const row = await em.findOne(PluginConfigSchema, { type, name });
  if (!row) return undefined;
  return {
    type,
    name,
    settings: settingsOf(pluginTypeDefinitions[type], row),
    secrets: openSecrets(secrets, row),
  };
}
