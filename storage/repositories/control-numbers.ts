/**
 * A partner's control-number counters as the API shows and resets them (the numbers are taken by
 * flow/commands/control-numbers.ts). A reset locks the counter's row first, so a build under way
 * finishes before it and the number it replaces is the one the audit log records.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { inEntityTx } from '../sql.js';

export type ControlDirection = 'outbound' | 'inbound';
export type ControlLevel = 'group' | 'interchange' | 'set';

export interface ControlCounter {
  direction: ControlDirection;
  level: ControlLevel;
  last_value: number;
  updated_at: Date;
}

export async function readControlNumbers(em: EntityManager, partnerId: number): Promise<ControlCounter[]> {
  const rows = await inEntityTx(em).all<{
    direction: ControlDirection;
    level: ControlLevel;
    last_value: string;
    updated_at: Date;
  }>(
    `select direction, level, last_value, updated_at from edi_control_number
      where partner_id = ? order by direction, level`,
    [partnerId],
  );
  return rows.map((r) => ({ ...r, last_value: Number(r.last_value) }));
}

/** Sets a counter's last number (the next one taken is one more); returns the one it had, 0 when none was taken yet. Run it in a transaction. */
export async function setControlNumber(
  em: EntityManager,
  partnerId: number,
  direction: ControlDirection,
  level: ControlLevel,
  lastValue: number,
): Promise<number> {
  const tx = inEntityTx(em);
  const [before] = await tx.all<{ last_value: string }>(
    `select last_value from edi_control_number where partner_id = ? and direction = ? and level = ? for update`,
    [partnerId, direction, level],
  );
  await tx.all(
    `insert into edi_control_number (partner_id, direction, level, last_value) values (?, ?, ?, ?)
     on conflict (partner_id, direction, level) do update set last_value = excluded.last_value, updated_at = now()`,
    [partnerId, direction, level, lastValue],
  );
  return before ? Number(before.last_value) : 0;
}
