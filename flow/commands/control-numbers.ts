/**
 * Control numbers of interchanges pier builds for a partner: taken in the transaction that
 * stores the outbound message, one statement for all the levels an interchange needs. The
 * statement updates (or first inserts) one row per level and holds its row lock until the
 * transaction ends, so a second node waits for the first and takes the number after it; a
 * transaction that rolls back (a refused build, a node killed with -9) gives its numbers back,
 * so the numbers stay unique, increasing and without gaps across nodes and restarts.
 *
 * Rows touched: edi_control_number (partner, direction, level), in level order.
 */
import type { Tx } from '../tx.js';

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
