/** The queries the API reads messages with: a filtered page, and the parts of each message. */
import type { EntityManager } from '@mikro-orm/postgresql';

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

export interface PayloadRow {
  message_id: string;
  stage: string;
  size_bytes: string;
  stored_at: Date;
}

export interface MessageFilters {
  status?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  since?: Date | undefined;
  limit: number;
  offset: number;
}

const columns =
  'id, status, stage, direction, from_party, to_party, file_name, source_type, source_name, refusal, created_at, updated_at';

/** A PostgreSQL array literal of uuids. */
const uuidArray = (ids: readonly string[]) => `{${ids.join(',')}}`;

export async function findMessages(
  em: EntityManager,
  f: MessageFilters,
): Promise<{ rows: MessageRow[]; total: number }> {
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
  const clause = where.length > 0 ? `where ${where.join(' and ')}` : '';
  const conn = em.getConnection();
  const [count] = await conn.execute<{ n: string }[]>(`select count(*) as n from message ${clause}`, params);
  const rows = await conn.execute<MessageRow[]>(
    `select ${columns} from message ${clause} order by created_at desc, id desc limit ? offset ?`,
    [...params, f.limit, f.offset],
  );
  return { rows, total: Number(count?.n ?? 0) };
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

export interface MessageParts {
  deliveries: DeliveryRow[];
  history: HistoryRow[];
  payloads: PayloadRow[];
  as2: As2Row[];
}

/** Deliveries (by creation and target), history (oldest first) and payload stages of the messages. */
export async function findMessageParts(em: EntityManager, ids: readonly string[]): Promise<MessageParts> {
  if (ids.length === 0) return { deliveries: [], history: [], payloads: [], as2: [] };
  const conn = em.getConnection();
  const list = uuidArray(ids);
  const [deliveries, history, payloads, as2] = await Promise.all([
    conn.execute<DeliveryRow[]>(
      `select id, message_id, target, state, attempts, next_attempt_at, last_error, created_at, updated_at, finished_at
         from delivery where message_id = any(?::uuid[]) order by created_at, target`,
      [list],
    ),
    conn.execute<HistoryRow[]>(
      'select * from message_history where message_id = any(?::uuid[]) order by id',
      [list],
    ),
    conn.execute<PayloadRow[]>('select * from payload where message_id = any(?::uuid[]) order by stage', [
      list,
    ]),
    conn.execute<As2Row[]>(
      `select message_id, as2_message_id, as2_from, as2_to, processed, info from as2_message
        where message_id = any(?::uuid[])`,
      [list],
    ),
  ]);
  return { deliveries, history, payloads, as2 };
}
