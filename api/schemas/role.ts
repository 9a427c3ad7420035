/** Roles of users and service accounts (pier's own rule, see docs/identity.md). */
import { z } from 'zod';

export const roles = ['admin', 'operator', 'viewer'] as const;
export type Role = (typeof roles)[number];
export const Role = z.enum(roles);

/** How much each role may do; a role may do everything a lower one may. */
const rank: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export function roleAllows(role: Role, needed: Role): boolean {
  return rank[role] >= rank[needed];
}
