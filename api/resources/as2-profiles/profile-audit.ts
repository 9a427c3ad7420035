/** The audit log's entry for a change of an AS2 profile, local or remote. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditChange } from '../../../storage/entities/audit-event.js';
import { OrganizationSchema, PartnerSchema } from '../../../storage/entities/party.js';
import type { AuditAction } from '../../audit/recorder.js';
import type { Caller } from '../../auth/caller.js';
import type { ApiContext } from '../../context.js';

/**
 * Records a change of the AS2 profile of organization (`local`) or partner (`remote`) `partyId`,
 * named after that party, or after its id should the party not be found.
 */
export async function auditProfile(
  ctx: ApiContext,
  em: EntityManager,
  caller: Caller,
  action: AuditAction,
  side: 'local' | 'remote',
  partyId: number,
  changes: AuditChange[],
): Promise<void> {
  const party =
    side === 'local'
      ? await em.findOne(OrganizationSchema, { id: partyId })
      : await em.findOne(PartnerSchema, { id: partyId });
  await ctx.audit.record(em, {
    actor: caller.actor,
    action,
    kind: `as2-${side}-profile`,
    record_id: partyId,
    record_name: party?.name ?? String(partyId),
    changes,
  });
}
