/** The queries the API reads messages with: a filtered page, and the parts of each message. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { direct, pgArray } from '../sql.js';

export interface MessageRow {
  id: string;
  status: string;
  stage: string;
  direction: string;
  from_party: string;
  to_party: string;
  file_name: string;
  source_type: string;
  source_name: string;
  refusal: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: string;
  message_id: string;
  target: string;
  state: string;
  attempts: number;
  next_attempt_at: Date | null;
  last_error: string;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export interface HistoryRow {
  id: string;
  message_id: string;
  created_at: Date;
  kind: string;
  old_status: string | null;
  new_status: string | null;
  text: string | null;
  delivery_id: string | null;
  target: string | null;
  old_state: string | null;
  new_state: string | null;
}

/** A history line with created_at read as RFC 3339 text (the event stream reads it so). */
export type HistoryRowAsText = Omit<HistoryRow, 'created_at'> & { created_at: string };

export interface PayloadRow {
  message_id: string;
  stage: string;
  size_bytes: string;
  stored_at: Date;
}

export interface MessageFilters {
  q?: string | undefined;
  direction?: string | undefined;
  target?: string | undefined;
  status?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  since?: Date | undefined;
  /** EDI envelope: the sender's or receiver's interchange id (ISA06/ISA08, UNB sender/recipient). */
  edi_sender?: string | undefined;
  edi_receiver?: string | undefined;
  /** An interchange (ISA13, UNB 0020) or group (GS06, UNG 0048) control number. */
  edi_control?: string | undefined;
  /** A document type the envelope names (850, ORDERS). */
  document_type?: string | undefined;
  /** What became of the functional acknowledgement (edi_interchange.ack_status). */
  acknowledgement?: string | undefined;
  limit: number;
  offset: number;
}

const columns =
  'id, status, stage, direction, from_party, to_party, file_name, source_type, source_name, refusal, created_at, updated_at';

/** A PostgreSQL array literal of uuids. */
const uuidArray = (ids: readonly string[]) => `{${ids.join(',')}}`;

/** A Message-ID as typed: with or without its angle brackets. */
function messageIdSpellings(q: string): string[] {
  const bare = q.trim().replace(/^<(.*)>$/, '$1');
  return [bare, `<${bare}>`];
}

/** The text with LIKE's wildcards taken literally. */
function likePrefix(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * How the total of a list is counted. The API counts exactly (docs/api/conventions.md#lists: `total` is the records
 * matching). The web UI counts exactly only up to `exactUpTo` rows past the page's start and
 * says "about" the planner's estimate beyond: an exact count(*) over a million messages costs
 * more than the rest of the page together (docs/decisions/the-messages-page-counts-up-to-1-000-then-estimates.md).
 */
export interface CountMode {
  exactUpTo?: number;
}

export async function findMessages(
  em: EntityManager,
  f: MessageFilters,
  countMode: CountMode = {},
): Promise<{ rows: MessageRow[]; total: number; totalEstimated: boolean }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (f.status) add('status = ?', f.status);
  if (f.from) add('from_party = ?', f.from);
  if (f.to) add('to_party = ?', f.to);
  if (f.since) add('created_at >= ?', f.since);
  if (f.direction) add('direction = ?', f.direction);
  if (f.target) add('id in (select message_id from delivery where target = ?)', f.target);
  // Each an indexed lookup of edi_interchange (Migration0120EdiEnvelopes).
  if (f.edi_sender) add('id in (select message_id from edi_interchange where sender_id = ?)', f.edi_sender);
  if (f.edi_receiver)
    add('id in (select message_id from edi_interchange where receiver_id = ?)', f.edi_receiver);
  if (f.edi_control) {
    where.push(`id in (select message_id from edi_interchange where interchange_control = ?
                       union select message_id from edi_interchange where group_controls @> array[?]::text[])`);
    params.push(f.edi_control, f.edi_control);
  }
  if (f.document_type)
    add(
      'id in (select message_id from edi_interchange where document_types @> array[?]::text[])',
      f.document_type,
    );
  if (f.acknowledgement)
    add('id in (select message_id from edi_interchange where ack_status = ?)', f.acknowledgement);
  if (f.q) {
    // One indexed lookup per way of finding (Migration0030MessageSearch, and
    // Migration0141MessagePartySearch for the start of either party's name), joined by union.
    const ids = messageIdSpellings(f.q);
    const prefix = `${likePrefix(f.q.trim().toLowerCase())}%`;
    where.push(`id in (
      select id from message where lower(file_name) like ? escape '\\'
      union select message_id from as2_message where as2_message_id = any(?::text[])
      union select message_id from as2_message where (info -> 'mdn' ->> 'message_id') = any(?::text[])
      union select id from message where from_party like ? escape '\\'
      union select id from message where to_party like ? escape '\\')`);
    params.push(`${likePrefix(f.q.toLowerCase())}%`, pgArray(ids), pgArray(ids), prefix, prefix);
  }
  const clause = where.length > 0 ? `where ${where.join(' and ')}` : '';
  const conn = em.getConnection();
  const rows = await conn.execute<MessageRow[]>(
    `select ${columns} from message ${clause} order by created_at desc, id desc limit ? offset ?`,
    [...params, f.limit, f.offset],
  );
  if (countMode.exactUpTo === undefined) {
    const [count] = await conn.execute<{ n: string }[]>(
      `select count(*) as n from message ${clause}`,
      params,
    );
    return { rows, total: Number(count?.n ?? 0), totalEstimated: false };
  }
  const cap = f.offset + countMode.exactUpTo;
  const [capped] = await conn.execute<{ n: string }[]>(
    `select count(*) as n from (select 1 from message ${clause} limit ?) matching`,
    [...params, cap + 1],
  );
  const counted = Number(capped?.n ?? 0);
  if (counted <= cap) return { rows, total: counted, totalEstimated: false };
  // More than the cap: the planner's estimate of the matching rows, at least what was counted.
  const [plan] = await conn.execute<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[]>(
    `explain (format json) select 1 from message ${clause}`,
    params,
  );
  const estimate = Math.round(plan?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0);
  return { rows, total: Math.max(estimate, counted), totalEstimated: true };
}

export async function findMessage(em: EntityManager, id: string): Promise<MessageRow | undefined> {
  const [row] = await em
    .getConnection()
    .execute<MessageRow[]>(`select ${columns} from message where id = ?`, [id]);
  return row;
}

export interface As2Row {
  message_id: string;
  as2_message_id: string;
  as2_from: string;
  as2_to: string;
  processed: boolean | null;
  info: Record<string, unknown>;
}

/** A message's EDI envelope and what became of its functional acknowledgement. */
export interface EdiRow {
  message_id: string;
  standard: string;
  version: string;
  sender_qualifier: string;
  sender_id: string;
  receiver_qualifier: string;
  receiver_id: string;
  interchange_control: string;
  group_controls: string[];
  document_types: string[];
  pending: boolean;
  ack_status: string | null;
  ack_due_at: string | null;
  ack_message_id: string | null;
  problem: string | null;
}

export interface MessageParts {
  deliveries: DeliveryRow[];
  history: HistoryRow[];
  payloads: PayloadRow[];
  as2: As2Row[];
  edi: EdiRow[];
}

/**
 * The parts of the messages as JSON columns; five parameters, each the uuid array literal
 * (a parameter, not a common table expression, so the planner sees the ids and uses the
 * message_id indexes). `ids` is the expression the parameter goes in: one message's view
 * passes `array[?::uuid]`, which a prepared statement's generic plan still reads through the
 * indexes, where a whole-array parameter made it scan the tables (21,000 rows per message).
 */
const partsSql = (ids = '?') => `
  (select coalesce(json_agg(d order by d.created_at, d.target), '[]') from (
     select id::text, message_id, target, state, attempts, next_attempt_at, last_error, created_at, updated_at,
            finished_at
       from delivery where message_id = any(${ids}::uuid[])) d) as deliveries,
  (select coalesce(json_agg(h order by h.created_at, h.id), '[]') from (
     select id, id::text as id_text, message_id, created_at, kind, old_status, new_status, text,
            delivery_id::text, target, old_state, new_state
       from message_history where message_id = any(${ids}::uuid[])) h) as history,
  (select coalesce(json_agg(p order by p.stage), '[]') from (
     select message_id, stage, size_bytes::text, stored_at from payload where message_id = any(${ids}::uuid[])) p)
    as payloads,
  (select coalesce(json_agg(a), '[]') from (
     select message_id, as2_message_id, as2_from, as2_to, processed, info
       from as2_message where message_id = any(${ids}::uuid[])) a) as as2,
  (select coalesce(json_agg(e), '[]') from (
     select * from edi_interchange where message_id = any(${ids}::uuid[])) e) as edi`;

type JsonParts = {
  deliveries: (Omit<DeliveryRow, 'created_at' | 'updated_at' | 'next_attempt_at' | 'finished_at'> &
    Record<'created_at' | 'updated_at' | 'next_attempt_at' | 'finished_at', string | null>)[];
  history: (Omit<HistoryRow, 'id' | 'created_at'> & { id_text: string; created_at: string })[];
  payloads: (Omit<PayloadRow, 'stored_at'> & { stored_at: string })[];
  as2: As2Row[];
  edi: EdiRow[];
};

const date = (text: string | null) => (text === null ? null : new Date(text));

/** JSON from PostgreSQL back to the row types: timestamps as Dates, big ids as text. */
function revive(parts: JsonParts): MessageParts {
  return {
    deliveries: parts.deliveries.map((d) => ({
      ...d,
      created_at: date(d.created_at)!,
      updated_at: date(d.updated_at)!,
      next_attempt_at: date(d.next_attempt_at),
      finished_at: date(d.finished_at),
    })),
    history: parts.history.map(({ id_text, ...h }) => ({
      ...h,
      id: id_text,
      created_at: date(h.created_at)!,
    })),
    payloads: parts.payloads.map((p) => ({ ...p, stored_at: date(p.stored_at)! })),
    as2: parts.as2,
    edi: parts.edi,
  };
}

/**
 * Deliveries (by creation and target), history (oldest first), payload stages and AS2
 * records of the messages, in one statement (one round trip to the database).
 */
export async function findMessageParts(em: EntityManager, ids: readonly string[]): Promise<MessageParts> {
  if (ids.length === 0) return { deliveries: [], history: [], payloads: [], as2: [], edi: [] };
  const [row] = await em
    .getConnection()
    .execute<JsonParts[]>(`select ${partsSql()}`, Array<string>(5).fill(uuidArray(ids)));
  return revive(row!);
}

/** One message with its parts, in one statement; undefined when there is no such message. */
export async function findMessageView(
  em: EntityManager,
  id: string,
): Promise<{ row: MessageRow; parts: MessageParts } | undefined> {
  // On the driver directly and prepared: this runs for every upload's answer, and parsing and
  // planning it cost PostgreSQL three times what running it does (storage/sql.ts). Callers
  // pass a fresh entity manager, never one inside a transaction.
  const [found] = await direct(em).prepared<
    {
      message:
        (Omit<MessageRow, 'created_at' | 'updated_at'> & Record<'created_at' | 'updated_at', string>) | null;
    } & JsonParts
  >(
    'pier_message_view',
    `select (select row_to_json(m) from (select ${columns} from message where id = ?) m) as message,
            ${partsSql('array[?::uuid]')}`,
    [id, id, id, id, id, id],
  );
  if (!found?.message) return undefined;
  const { message, ...parts } = found;
  return {
    row: { ...message, created_at: new Date(message.created_at), updated_at: new Date(message.updated_at) },
    parts: revive(parts),
  };
}

/** The bytes of the message's stages kept inline (storage/payloads/inline.ts), by stage. */
export async function findInlineStages(
  em: EntityManager,
  id: string,
  stages: readonly string[],
): Promise<Map<string, Buffer>> {
  const rows = await direct(em).all<{ stage: string; content: Buffer }>(
    `select stage, content from payload where message_id = ? and stage = any(?::text[]) and content is not null`,
    [id, pgArray(stages)],
  );
  return new Map(rows.map((r) => [r.stage, r.content]));
}
