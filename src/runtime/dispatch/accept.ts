/**
 * Acceptance: a source hands over a message whose payload is already stored. One
 * transaction stores the message, its payload stage and its first history line; from
 * then on it is never lost. A source that offers the same thing again (the same file,
 * after a crash before it could move the file away) gets the message it already has.
 */
import type { AcceptRequest } from '../channels/core-protocol.js';
import { addHistory, pgArray, type Tx } from './tx.js';
import type { MessageStage, MessageStatus } from './status.js';

export interface AcceptItem {
  source_type: string;
  source_name: string;
  message: AcceptRequest['message'];
  /** The target a message sent by hand names. */
  target_hint?: string;
  /** The first history line's text, when the source has more to say than its name. */
  text?: string;
}

export interface AcceptOutcome {
  message_id: string;
  duplicate: boolean;
  status: MessageStatus;
  /** Accepted now and waiting to be dispatched. */
  toDispatch: boolean;
}

type PartyKind = 'organization' | 'partner';

async function partyKinds(tx: Tx, names: string[]): Promise<Map<string, Set<PartyKind>>> {
  const rows = await tx.all<{ name: string; kind: PartyKind }>(
    `select name, 'organization' as kind from organization where name = any(?::text[])
     union all select name, 'partner' as kind from partner where name = any(?::text[])`,
    [pgArray(names), pgArray(names)],
  );
  const kinds = new Map<string, Set<PartyKind>>();
  for (const r of rows) kinds.set(r.name, (kinds.get(r.name) ?? new Set()).add(r.kind));
  return kinds;
}

/**
 * One party must be an organization and the other a partner. Outbound when `from` is an
 * organization, inbound when it is a partner; a refusal when neither reading works.
 */
export function directionOf(
  from: Set<PartyKind> | undefined,
  to: Set<PartyKind> | undefined,
): { direction: 'inbound' | 'outbound'; problem?: string } {
  const guess = from?.has('organization') ? 'outbound' : 'inbound';
  if (!from) return { direction: guess, problem: 'the sender is not an organization or partner' };
  if (!to) return { direction: guess, problem: 'the receiver is not an organization or partner' };
  if (from.has('organization') && to.has('partner')) return { direction: 'outbound' };
  if (from.has('partner') && to.has('organization')) return { direction: 'inbound' };
  const both = from.has('organization') ? 'organizations' : 'partners';
  return {
    direction: guess,
    problem: `both parties are ${both}; one must be an organization, the other a partner`,
  };
}

export async function acceptBatch(
  tx: Tx,
  at: Date,
  node: number,
  items: AcceptItem[],
): Promise<AcceptOutcome[]> {
  const kinds = await partyKinds(tx, [...new Set(items.flatMap((i) => [i.message.from, i.message.to]))]);
  const rows = items.map((item) => {
    const m = item.message;
    const { direction, problem } = directionOf(kinds.get(m.from), kinds.get(m.to));
    const refusal =
      m.refusal ?? (problem ? `Refused: ${problem} (from ${m.from || '-'} to ${m.to || '-'})` : null);
    const status: MessageStatus = refusal ? 'Refused' : 'Received';
    const stage: MessageStage = refusal ? 'settled' : 'accepted';
    return {
      id: m.id,
      status,
      stage,
      direction,
      from_party: m.from,
      to_party: m.to,
      file_name: m.file_name,
      source_type: item.source_type,
      source_name: item.source_name,
      source_key: m.source_key ?? null,
      target_hint: item.target_hint ?? null,
      refusal,
      size_bytes: m.payload.size_bytes,
      payload_stage: m.payload.stage,
      text: item.text ?? `Accepted from ${item.source_type} ${item.source_name}`,
    };
  });
  const inserted = await tx.all<{ id: string }>(
    `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type, source_name,
                          source_key, target_hint, refusal, accepted_by, created_at, updated_at)
     select x.id, x.status, x.stage, x.direction, x.from_party, x.to_party, x.file_name, x.source_type, x.source_name,
            x.source_key, x.target_hint, x.refusal, ?, ?, ?
       from jsonb_to_recordset(?::jsonb) as x(id uuid, status text, stage text, direction text, from_party text,
            to_party text, file_name text, source_type text, source_name text, source_key text, target_hint text,
            refusal text)
     on conflict (source_name, source_key) where source_key is not null do nothing
     returning id`,
    [node, at, at, JSON.stringify(rows)],
  );
  const fresh = new Set(inserted.map((r) => r.id));
  const stored = rows.filter((r) => fresh.has(r.id));
  if (stored.length > 0) {
    await tx.all(
      `insert into payload (message_id, stage, size_bytes, stored_at)
       select x.id, x.payload_stage, x.size_bytes, ? from jsonb_to_recordset(?::jsonb) as x(id uuid, payload_stage text, size_bytes bigint)`,
      [at, JSON.stringify(stored)],
    );
    await addHistory(
      tx,
      at,
      stored.map((r) => ({
        message_id: r.id,
        kind: 'status_changed',
        old_status: null,
        new_status: r.status,
        text: r.refusal ? `${r.text}. ${r.refusal}` : r.text,
      })),
    );
  }
  const offeredAgain = rows.filter((r) => !fresh.has(r.id) && r.source_key !== null);
  const earlier = new Map<string, { id: string; status: MessageStatus }>();
  if (offeredAgain.length > 0) {
    const found = await tx.all<{
      id: string;
      status: MessageStatus;
      source_name: string;
      source_key: string;
    }>(
      `select m.id, m.status, m.source_name, m.source_key from message m
         join jsonb_to_recordset(?::jsonb) as x(source_name text, source_key text)
           on m.source_name = x.source_name and m.source_key = x.source_key`,
      [JSON.stringify(offeredAgain.map((r) => ({ source_name: r.source_name, source_key: r.source_key })))],
    );
    for (const f of found) earlier.set(`${f.source_name}\u0000${f.source_key}`, f);
  }
  return rows.map((r) => {
    if (fresh.has(r.id))
      return { message_id: r.id, duplicate: false, status: r.status, toDispatch: r.stage === 'accepted' };
    const before = earlier.get(`${r.source_name}\u0000${r.source_key}`);
    if (!before) throw new Error(`Message ${r.id} was neither stored nor found`);
    return { message_id: before.id, duplicate: true, status: before.status, toDispatch: false };
  });
}
