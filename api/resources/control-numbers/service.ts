/**
 * A partner's control numbers seen and reset by an administrator (docs/edi-json.md#control-numbers).
 * A reset and its audit event commit in one transaction, and the reset waits for a build that
 * holds the counter, so the audit log says which number replaced which.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { PartnerSchema } from '../../../storage/entities/party.js';
import {
  readControlNumbers,
  setControlNumber,
  type ControlDirection,
  type ControlLevel,
} from '../../../storage/repositories/control-numbers.js';
import type { Caller } from '../../auth/caller.js';
import { inTransaction, type ApiContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { ControlNumberRecord } from '../../schemas/control-number.js';

async function partnerOf(em: EntityManager, id: number) {
  const partner = await em.findOne(PartnerSchema, { id });
  if (!partner) throw notFound('Partner');
  return partner;
}

const recordOf = (c: Awaited<ReturnType<typeof readControlNumbers>>[number]): ControlNumberRecord => ({
  direction: c.direction,
  level: c.level,
  last_value: c.last_value,
  updated_at: new Date(c.updated_at).toISOString(),
});

export async function listControlNumbers(
  em: EntityManager,
  partnerId: number,
): Promise<ControlNumberRecord[]> {
  await partnerOf(em, partnerId);
  return (await readControlNumbers(em, partnerId)).map(recordOf);
}

export async function resetControlNumber(
  ctx: ApiContext,
  caller: Caller,
  partnerId: number,
  direction: ControlDirection,
  level: ControlLevel,
  lastValue: number,
): Promise<ControlNumberRecord[]> {
  return inTransaction(ctx, async (em) => {
    const partner = await partnerOf(em, partnerId);
    const before = await setControlNumber(em, partnerId, direction, level, lastValue);
    await ctx.audit.record(em, {
      actor: caller.actor,
      action: 'update',
      kind: 'control_number',
      record_id: partnerId,
      record_name: `${partner.name} ${direction} ${level}`,
      changes: [{ field: 'last_value', old: before, new: lastValue }],
    });
    return (await readControlNumbers(em, partnerId)).map(recordOf);
  });
}
