/**
 * The statements of functional acknowledgements (docs/partner-setup.md, "EDI routing and
 * acknowledgements"): which interchanges the acknowledgement sweep still has to look at, what
 * it found, acknowledgements matched to the interchanges they answer, and deadlines that passed.
 * The sweep itself (reading payloads, building and sending acknowledgements) is
 * runtime/edi/acknowledgement-sweep.ts.
 *
 * Locks (docs/architecture.md, "Lock order of the message flow"): `edi_interchange` rows only,
 * which belong to their messages (step 3) and which no other command locks, in message id
 * order; then alerts, their turns first (step 4). Two processes may look at the same pending
 * interchange at once: each record checks `pending` again, and the acknowledgement message is
 * accepted under a source key made from the interchange's message, so it is sent once.
 */
import { raiseAlert, alertTurn, takeAlertTurns } from '../alerts/alerts.js';
import { alertLinks } from '../alerts/links.js';
import { pgArray, type Tx } from '../tx.js';
import type { AcknowledgementReading } from '../../edi/report.js';

/** Document types that are functional acknowledgements: never acknowledged, never awaited. */
export const acknowledgementTypes = ['997', '999', 'CONTRL'];

export interface PendingInterchange {
  message_id: string;
  direction: 'inbound' | 'outbound';
  from_party: string;
  to_party: string;
  created_at: Date;
  standard: 'x12' | 'edifact';
  sender_qualifier: string;
  sender_id: string;
  receiver_qualifier: string;
  receiver_id: string;
  interchange_control: string;
  document_types: string[];
  /** The partner's settings (the message's partner: its sender inbound, its receiver outbound); null when it has none. */
  x12_acknowledgement: 'none' | '997' | '999' | null;
  edifact_acknowledgement: 'none' | 'contrl' | null;
  acknowledgement_due_hours: number | null;
}

/** The payload the sweep reads an interchange from: its stage, and its bytes when kept inline (base64). */
export interface InterchangePayload {
  stage: string;
  content: string | null;
}

/** A statement with its parameters, as the sweep runs it (exported for its plan's test). */
export interface SweepStatement {
  sql: string;
  params: unknown[];
}

/**
 * Interchanges left for the sweep, oldest first, with their partner's settings. Without their
 * payloads: most need none (every outbound one, and an inbound one whose partner wants no
 * acknowledgement), and reading a stored document costs more than the rest of the row.
 * The pending rows are read once, through their partial index, and each message is probed by
 * its key (a lateral read of one row): on statistics older than the last sweeps, which believe
 * many are pending, joining them back to their table and to `message` read both whole for every
 * batch (flow/commands/sweep-plans.test.ts).
 */
export function pendingInterchangesStatement(limit: number): SweepStatement {
  return {
    sql: `with i as (
       select message_id, standard, sender_qualifier, sender_id, receiver_qualifier, receiver_id,
              interchange_control, document_types
         from edi_interchange where pending order by message_id limit ?
     )
     select i.message_id, m.direction, m.from_party, m.to_party, m.created_at, i.standard, i.sender_qualifier,
            i.sender_id, i.receiver_qualifier, i.receiver_id, i.interchange_control, i.document_types,
            p.x12_acknowledgement, p.edifact_acknowledgement, p.acknowledgement_due_hours
       from i cross join lateral (select * from message m where m.id = i.message_id limit 1) m
       left join partner p on p.name = case m.direction when 'inbound' then m.from_party else m.to_party end
      order by m.created_at, i.message_id`,
    params: [limit],
  };
}

export async function pendingInterchanges(tx: Tx, limit: number): Promise<PendingInterchange[]> {
  const { sql, params } = pendingInterchangesStatement(limit);
  return tx.all<PendingInterchange>(sql, params);
}

/** The payloads of the messages the sweep reads, by message id; a message without one is absent. */
export async function interchangePayloads(
  tx: Tx,
  messageIds: readonly string[],
): Promise<Map<string, InterchangePayload>> {
  if (messageIds.length === 0) return new Map();
  const rows = await tx.all<InterchangePayload & { message_id: string }>(
    `select distinct on (message_id) message_id, stage, encode(content, 'base64') as content
       from payload
      where message_id = any(?::uuid[]) and stage in ('unpacked', 'received')
      order by message_id, stage = 'unpacked' desc`,
    [pgArray(messageIds)],
  );
  return new Map(rows.map(({ message_id, ...payload }) => [message_id, payload]));
}

/** What the sweep found for one interchange. */
export type InterchangeOutcome =
  /** Outbound: the partner's acknowledgement is awaited until `due` (null: none is expected). */
  | { kind: 'awaited'; due: Date | null }
  /** Inbound: an acknowledgement was sent as message `ack_message_id`. */
  | { kind: 'acknowledged'; ack_message_id: string }
  /** Inbound: nothing to send (the partner wants none, or it is itself an acknowledgement). */
  | { kind: 'nothing' }
  /** Inbound: it could not be read well enough to acknowledge. */
  | { kind: 'unreadable'; problem: string };

/** What the sweep found for one interchange, to be recorded with the others of its run. */
export interface FoundInterchange {
  message_id: string;
  outcome: InterchangeOutcome;
}

/**
 * Records what the sweep found for a batch of interchanges in one statement (one commit per
 * batch, not one per interchange: every EDI message has an interchange, and most need nothing
 * but this record). Rows are locked in message id order, as every command here locks them.
 * The ids also go as an array, whose length the planner knows, so the rows are probed by key
 * (flow/tx.ts says why).
 */
export function recordInterchangesStatement(found: FoundInterchange[]): SweepStatement {
  const rows = found.map(({ message_id, outcome }) =>
    outcome.kind === 'awaited'
      ? { message_id, status: outcome.due ? 'expected' : null, due: outcome.due, ack: null, problem: null }
      : outcome.kind === 'acknowledged'
        ? { message_id, status: 'sent', due: null, ack: outcome.ack_message_id, problem: null }
        : outcome.kind === 'unreadable'
          ? { message_id, status: null, due: null, ack: null, problem: outcome.problem.slice(0, 2000) }
          : { message_id, status: null, due: null, ack: null, problem: null },
  );
  const ids = pgArray(rows.map((r) => r.message_id));
  return {
    // An acknowledgement that arrived before the sweep gave the interchange its deadline keeps its status.
    sql: `with x as (
       select * from jsonb_to_recordset(?::jsonb)
                  as r(message_id uuid, status text, due timestamptz, ack uuid, problem text)
     ), locked as (
       select i.message_id from edi_interchange i
        where i.message_id = any(?::uuid[]) and i.pending order by i.message_id for no key update of i
     )
     update edi_interchange i set pending = false,
            ack_status = coalesce(i.ack_status, x.status),
            ack_due_at = case when i.ack_status is null then x.due end,
            ack_message_id = coalesce(i.ack_message_id, x.ack), problem = x.problem
       from x join locked using (message_id)
      where i.message_id = x.message_id and i.message_id = any(?::uuid[]) and i.pending
     returning i.message_id`,
    params: [JSON.stringify(rows), ids, ids],
  };
}

/**
 * Records the batch (recordInterchangesStatement). Returns the messages recorded; one another
 * process recorded first is left out.
 */
export async function recordInterchanges(tx: Tx, found: FoundInterchange[]): Promise<string[]> {
  if (found.length === 0) return [];
  const { sql, params } = recordInterchangesStatement(found);
  const recorded = await tx.all<{ message_id: string }>(sql, params);
  return recorded.map((r) => r.message_id);
}

/**
 * Matches an acknowledgement received (message `ackMessageId`, whose envelope names `sender`
 * and `receiver`) to the outbound interchanges it answers: sent by its receiver to its sender,
 * with the group control number (X12 AK1) or interchange reference (EDIFACT UCI) it names.
 * Returns the messages marked acknowledged or rejected.
 */
export async function matchAcknowledgement(
  tx: Tx,
  ackMessageId: string,
  standard: 'x12' | 'edifact',
  parties: { sender_id: string; receiver_id: string },
  readings: AcknowledgementReading[],
): Promise<string[]> {
  const matched: string[] = [];
  for (const r of readings) {
    const rows = await tx.all<{ message_id: string }>(
      `update edi_interchange i set ack_status = ?, ack_message_id = ?
        where i.message_id in (
                select e.message_id from edi_interchange e join message m on m.id = e.message_id
                 where m.direction = 'outbound' and e.standard = ? and e.sender_id = ? and e.receiver_id = ?
                   and ${standard === 'x12' ? '? = any(e.group_controls)' : 'e.interchange_control = ?'}
                 order by e.message_id for no key update of e)
       returning i.message_id`,
      [
        r.accepted ? 'acknowledged' : 'rejected',
        ackMessageId,
        standard,
        parties.receiver_id,
        parties.sender_id,
        (standard === 'x12' ? r.group_control : r.interchange_control) ?? '',
      ],
    );
    matched.push(...rows.map((row) => row.message_id));
  }
  return matched;
}

/**
 * Marks `overdue` the interchanges whose acknowledgement deadline passed and raises an
 * acknowledgement_overdue alert for each; returns the messages marked.
 */
export async function acknowledgementsOverdue(tx: Tx, at: Date): Promise<string[]> {
  const rows = await tx.all<{
    message_id: string;
    to_party: string;
    interchange_control: string;
    document_types: string[];
    ack_due_at: Date;
  }>(
    `with due as (
       select message_id from edi_interchange where ack_status = 'expected' and ack_due_at <= ?
        order by message_id limit 500 for no key update skip locked
     ), marked as (
       update edi_interchange i set ack_status = 'overdue' from due where i.message_id = due.message_id
       returning i.message_id, i.interchange_control, i.document_types, i.ack_due_at
     )
     select marked.*, m.to_party from marked join message m on m.id = marked.message_id order by marked.message_id`,
    [at],
  );
  if (rows.length === 0) return [];
  await takeAlertTurns(
    tx,
    rows.map((r) => alertTurn('acknowledgement_overdue', 'message', r.message_id)),
  );
  for (const r of rows) {
    await raiseAlert(
      tx,
      {
        code: 'acknowledgement_overdue',
        subject_kind: 'message',
        subject_id: r.message_id,
        subject_name: r.message_id,
        summary: `Partner ${r.to_party} has not acknowledged interchange ${r.interchange_control} (${r.document_types.join(', ')}) of message ${r.message_id}, due ${new Date(r.ack_due_at).toISOString()}`,
        details: {
          message_id: r.message_id,
          partner: r.to_party,
          interchange_control: r.interchange_control,
          document_types: r.document_types,
          due_at: new Date(r.ack_due_at).toISOString(),
        },
        dedupe_key: `acknowledgement_overdue:${r.to_party}`,
        link: alertLinks.message(r.message_id),
      },
      at,
    );
  }
  return rows.map((r) => r.message_id);
}

/** The next control number of an acknowledgement pier sends (one sequence for all partners). */
export async function nextAcknowledgementControl(tx: Tx): Promise<number> {
  const [row] = await tx.all<{ n: string }>(`select nextval('edi_acknowledgement_control') as n`, []);
  return Number(row!.n);
}
