/** Organizations (the operator's own parties) and partners (business partners): docs/api/parties.md. */
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAt, updatedAt } from './timestamps.js';

const partyProperties = {
  id: p.integer().primary().autoincrement(),
  name: p.string().length(64),
  display_name: p.string().length(200),
  created_at: createdAt(),
  updated_at: updatedAt(),
};

export const OrganizationSchema = defineEntity({
  name: 'Organization',
  tableName: 'organization',
  properties: partyProperties,
});
export type Organization = InferEntity<typeof OrganizationSchema>;

export const PartnerSchema = defineEntity({
  name: 'Partner',
  tableName: 'partner',
  properties: partyProperties,
});
export type Partner = InferEntity<typeof PartnerSchema>;
