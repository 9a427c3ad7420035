/**
 * The interchange control numbers received from each partner (X12 ISA13, EDIFACT UNB 0020):
 * the acknowledgement sweep records the last one in the partner's `inbound` interchange counter,
 * where an administrator sees it (GET /partners/{id}/control-numbers), and an interchange whose
 * number is not after the last one received (a duplicate, or out of sequence) gets a
 * `duplicate_received` line in its message's history. A gap is not noted: many senders number
 * all their partners' interchanges from one counter, so gaps are normal. A reference that is not
 * a number (EDIFACT allows letters) is not counted.
 *
 * Runs in the transaction that records what the sweep found, for the interchanges it recorded,
 * so each is counted once even when two processes sweep the same one.
 *
 * Locks (docs/architecture.md, "Lock order of the message flow"): after the `edi_interchange`
 * rows (edi-acks.ts), the partners' inbound interchange counters, in partner id order; then new
 * history lines. Builds lock only outbound counters, so they never wait for these.
 */
import { addHistory, pgArray, type Tx } from '../tx.js';

export interface ReceivedInterchange {
  message_id: string;
  /** The partner that sent it (the message's from_party). */
  partner: string;
  interchange_control: string;
}

/** The largest number a counter holds (EDIFACT's 14 characters; X12's 9 digits fit). */
const numeric = /^\d{1,14}$/;

/**
 * Records the numbers of interchanges received, in the order given (the order they were
 * received), and notes those not after the last one. Returns the messages noted.
 */
export async function noteReceivedControls(
  tx: Tx,
  at: Date,
  received: ReceivedInterchange[],
): Promise<string[]> {
  const counted = received.filter((r) => numeric.test(r.interchange_control));
  if (counted.length === 0) return [];
  const names = pgArray([...new Set(counted.map((r) => r.partner))]);
  // Every counter exists before it is locked, so both statements lock in partner id order.
  await tx.all(
    `insert into edi_control_number (partner_id, direction, level, last_value)
     select id, 'inbound', 'interchange', 0 from partner where name = any(?::text[]) order by id
     on conflict (partner_id, direction, level) do nothing`,
    [names],
  );
  const rows = await tx.all<{ id: number; name: string; last_value: string }>(
    `select p.id, p.name, c.last_value from edi_control_number c join partner p on p.id = c.partner_id
      where p.name = any(?::text[]) and c.direction = 'inbound' and c.level = 'interchange'
      order by p.id for update of c`,
    [names],
  );
  const last = new Map(rows.map((r) => [r.name, { id: r.id, value: Number(r.last_value), seen: false }]));
  const noted: { message_id: string; text: string }[] = [];
  for (const r of counted) {
    const counter = last.get(r.partner);
    if (!counter) continue;
    const n = Number(r.interchange_control);
    // A counter at 0 that no interchange set yet has nothing to compare with (0 is a number too).
    if ((counter.seen || counter.value > 0) && n <= counter.value)
      noted.push({
        message_id: r.message_id,
        text: `Interchange control number ${r.interchange_control} from ${r.partner} is not after the last one received (${counter.value}): a duplicate or out of sequence`,
      });
    counter.value = Math.max(counter.value, n);
    counter.seen = true;
  }
  const changed = [...last.values()].filter((c) => c.seen);
  await tx.all(
    `update edi_control_number c set last_value = greatest(c.last_value, x.value), updated_at = ?
       from jsonb_to_recordset(?::jsonb) as x(id int, value bigint)
      where c.partner_id = x.id and c.direction = 'inbound' and c.level = 'interchange'`,
    [at, JSON.stringify(changed.map((c) => ({ id: c.id, value: c.value })))],
  );
  await addHistory(
    tx,
    at,
    noted.map((n) => ({ message_id: n.message_id, kind: 'duplicate_received', text: n.text })),
  );
  return noted.map((n) => n.message_id);
}
