/** The one settings record (docs/api/settings.md); its id is always 1. */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { updatedAt } from './timestamps.js';

export const SettingsSchema = defineEntity({
  name: 'Settings',
  tableName: 'settings',
  properties: {
    id: p.integer().primary(),
    storage_backend: p.string().length(16).$type<'local' | 's3'>(),
    storage_local_directory: p.text(),
    storage_s3_bucket: p.text(),
    storage_s3_region: p.text(),
    storage_s3_endpoint: p.text(),
    delivery_max_dispatches: p.integer(),
    identification_hide_version: p.boolean(),
    updated_at: updatedAt(),
  },
});
export type Settings = InferEntity<typeof SettingsSchema>;
