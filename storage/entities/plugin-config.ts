/** A plugin instance's configuration (docs/api/plugin-configs.md): its type, name, settings and sealed secrets. */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps.js';

export const PluginConfigSchema = defineEntity({
  name: 'PluginConfig',
  tableName: 'plugin_config',
  properties: {
    id: p.integer().primary().autoincrement(),
    type: p.string().length(32),
    name: p.string().length(64),
    enabled: p.boolean(),
    /** Every setting of the type except the write-only ones, defaults filled in. */
    settings: p.json<Record<string, unknown>>().columnType('jsonb'),
    /** Write-only values by property name, each sealed by the secret box. */
    secrets: p.json<Record<string, string>>().columnType('jsonb'),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
});
export type PluginConfig = InferEntity<typeof PluginConfigSchema>;
