/** A route (docs/api/routes.md): messages from a source instance between two parties go to a target instance. */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps.js';

export const RouteSchema = defineEntity({
  name: 'Route',
  tableName: 'route',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(64),
    source_plugin: p.string().length(64),
    /** A party name, or `*` for any. */
    from_party: p.string().length(64),
    /** A party name, or `*` for any. */
    to_party: p.string().length(64),
    target_plugin: p.string().length(64),
    /** An X12 transaction set id or EDIFACT message type the payload's envelope must name, or `*` for any. */
    document_type: p.string().length(16),
    created_at: createdAt(),
    updated_at: updatedAt(),
  },
});
export type Route = InferEntity<typeof RouteSchema>;
