/**
 * A partner's control-number counters: taken for a build (see flow/commands/control-numbers.ts
 * for why one statement in the storing transaction), shown and reset for the API. A reset locks
 * the counter's row first, so a build under way finishes before it and the number it replaces
 * is the one the audit log records.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { inEntityTx, type Tx } from '../sql.js';

export type ControlDirection = 'outbound' | 'inbound';
export const controlLevels = ['group', 'interchange', 'set'] as const;
export type ControlLevel = (typeof controlLevels)[number];

/** The largest number each standard's field holds: X12 ISA13, GS06 and ST02 are at most 9 digits; EDIFACT's references 14 characters. */
export const maxControl = { x12: 999_999_999, edifact: 99_999_999_999_999 } as const;

export class ControlNumbersExhausted extends Error {
  constructor(
    readonly level: ControlLevel,
    readonly max: number,
  ) {
    super(
      `the ${level} control numbers of this partner passed ${max}, the largest the standard's field holds; an administrator must reset them`,
    );
  }
}

/** The first number of each level's block: `count` numbers from it on are this caller's. */
export type ControlBlock = Partial<Record<ControlLevel, number>>;

export async function takeControlNumbers(
  tx: Tx,
  partnerId: number,
  direction: ControlDirection,
  counts: Partial<Record<ControlLevel, number>>,
  max: number,
): Promise<ControlBlock> {
  // In level order, so two transactions lock the rows in the same order and never deadlock.
  const wanted = controlLevels
    .filter((l) => (counts[l] ?? 0) > 0)
    .map((level) => ({ level, n: counts[level]! }));
  if (wanted.length === 0) return {};
  const rows = await tx.all<{ level: ControlLevel; last_value: string }>(
    `insert into edi_control_number (partner_id, direction, level, last_value)
     select ?, ?, w.level, w.n from jsonb_to_recordset(?::jsonb) as w(level text, n bigint)
     on conflict (partner_id, direction, level)
       do update set last_value = edi_control_number.last_value + excluded.last_value, updated_at = now()
     returning level, last_value`,
    [partnerId, direction, JSON.stringify(wanted)],
  );
  const block: ControlBlock = {};
  for (const row of rows) {
    const last = Number(row.last_value);
    if (last > max) throw new ControlNumbersExhausted(row.level, max);
    block[row.level] = last - counts[row.level]! + 1;
  }
  return block;
}

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
