/**
 * The message history as it is written, for the event stream (spec 6.1). One feed per process
 * LISTENs on `pier_history` (announced by a trigger on message_history, from any process),
 * reads the announced rows once and hands each line, serialised once, to every subscriber.
 * Rows are read only while someone subscribes, so a process nobody watches pays nothing.
 */
import type { Logger } from 'pino';
import type { Orm } from '../../storage/db.js';
import type { DatabaseListener } from '../../storage/listener.js';
import { direct, pgArray, type Tx } from '../../storage/sql.js';

export const historyChannel = 'pier_history';
export interface StreamLimits {
  /** Most stored lines sent after a Last-Event-ID. */
  replay: number;
  /** Most lines waiting for one slow client. */
  buffer: number;
  /** Milliseconds between keep-alive comments. */
  keepAliveMs: number;
}

export const defaultStreamLimits: StreamLimits = { replay: 1000, buffer: 1000, keepAliveMs: 20_000 };

/** One history line as the stream sends it: `data` is the JSON text of spec 6.1. */
export interface FeedLine {
  id: number;
  message_id: string;
  data: string;
}

export type FeedSubscriber = (lines: readonly FeedLine[]) => void;

interface HistoryRow {
  id: string;
  message_id: string;
  created_at: string;
  kind: string;
  old_status: string | null;
  new_status: string | null;
  text: string | null;
  delivery_id: string | null;
  target: string | null;
  old_state: string | null;
  new_state: string | null;
}

/** created_at as RFC 3339 in UTC with milliseconds, as the messages API shows it. */
const columns = `id, message_id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, kind, old_status, new_status, text, delivery_id, target, old_state, new_state`;

function toLine(row: HistoryRow): FeedLine {
  const data: Record<string, unknown> = {
    id: Number(row.id),
    message_id: row.message_id,
    created_at: row.created_at,
    kind: row.kind,
  };
  // Only the fields the line has (spec 6.1 "as applicable").
  if (row.old_status !== null) data.old_status = row.old_status;
  if (row.new_status !== null) data.new_status = row.new_status;
  if (row.text !== null) data.text = row.text;
  if (row.delivery_id !== null) data.delivery_id = Number(row.delivery_id);
  if (row.target !== null) data.target = row.target;
  if (row.old_state !== null) data.old_state = row.old_state;
  if (row.new_state !== null) data.new_state = row.new_state;
  return { id: Number(row.id), message_id: row.message_id, data: JSON.stringify(data) };
}

/** `12-40,45-45` as pairs; anything malformed is skipped (the payload is ours, but be safe). */
export function parseRanges(payload: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const part of payload.split(',')) {
    const match = /^(\d+)-(\d+)$/.exec(part);
    if (match) ranges.push([Number(match[1]), Number(match[2])]);
  }
  return ranges;
}

export class HistoryFeed {
  readonly #subscribers = new Set<FeedSubscriber>();
  readonly #db: Tx;
  /** Ranges announced and not read yet; read together by the next fetch. */
  #pending: [number, number][] = [];
  #draining = false;

  readonly limits: StreamLimits;

  constructor(
    orm: Orm,
    listener: DatabaseListener,
    private readonly logger: Logger,
    limits: Partial<StreamLimits> = {},
  ) {
    this.#db = direct(orm);
    this.limits = { ...defaultStreamLimits, ...limits };
    listener.on(historyChannel, (payload) => this.#announced(payload));
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  subscribe(subscriber: FeedSubscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  /**
   * Stored lines after `afterId` (of one message, when given), oldest first, at most `limit`.
   */
  async after(afterId: number, messageId: string | undefined, limit: number): Promise<FeedLine[]> {
    const rows = await this.#db.all<HistoryRow>(
      `select ${columns} from message_history
        where id > ?${messageId ? ' and message_id = ?' : ''} order by id limit ?`,
      messageId ? [afterId, messageId, limit] : [afterId, limit],
    );
    return rows.map(toLine);
  }

  #announced(payload: string): void {
    if (this.#subscribers.size === 0) return;
    this.#pending.push(...parseRanges(payload));
    // One read at a time keeps lines in the order their transactions committed.
    if (this.#draining) return;
    this.#draining = true;
    void this.#drain();
  }

  async #drain(): Promise<void> {
    for (;;) {
      if (this.#pending.length === 0) {
        // Cleared in the same turn as the last check, so no announcement is left waiting.
        this.#draining = false;
        return;
      }
      const ranges = this.#pending;
      this.#pending = [];
      try {
        const rows = await this.#db.all<HistoryRow>(
          `select ${columns} from message_history h
             join unnest(?::bigint[], ?::bigint[]) as r(lo, hi) on h.id between r.lo and r.hi
            order by h.id`,
          [pgArray(ranges.map((r) => r[0])), pgArray(ranges.map((r) => r[1]))],
        );
        if (rows.length === 0) continue;
        const lines = rows.map(toLine);
        for (const subscriber of this.#subscribers) subscriber(lines);
      } catch (error) {
        this.logger.error({ err: error }, 'could not read announced history lines');
      }
    }
  }
}
