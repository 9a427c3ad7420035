/**
 * The message history as it is written, for the event stream (spec 6.1). One feed per process
 * LISTENs on `pier_history` (announced by a trigger on message_history, from any process),
 * reads the announced rows once and hands each line, framed once, to every subscriber.
 * Rows are read only while someone subscribes, so a process nobody watches pays nothing.
 *
 * Lines are handed out in batches, not one by one: a subscriber costs one call and one socket
 * write per batch, whatever the number of lines in it. The feed runs on the main thread beside
 * the dispatcher, so after each batch it waits several times what the batch cost before the
 * next one (at most `coalesceMaxMs`): with few subscribers a line leaves at once, with a
 * thousand the lines of a few dozen milliseconds share one write and the flow keeps its pace.
 */
import type { Logger } from 'pino';
import type { Orm } from '../../storage/db.js';
import type { DatabaseListener } from '../../storage/listener.js';
import { direct, pgArray, type Tx } from '../../storage/sql.js';
import { sseFrame } from './sse-frame.js';

export const historyChannel = 'pier_history';
export interface StreamLimits {
  /** Most stored lines sent after a Last-Event-ID. */
  replay: number;
  /** Most lines waiting for one slow client. */
  buffer: number;
  /** Milliseconds between keep-alive comments. */
  keepAliveMs: number;
  /** Most milliseconds a line waits for the batch it leaves in. */
  coalesceMaxMs: number;
}

export const defaultStreamLimits: StreamLimits = {
  replay: 1000,
  buffer: 1000,
  keepAliveMs: 20_000,
  coalesceMaxMs: 100,
};

/**
 * After a batch, the feed rests this many times what the batch took, so the fan-out takes at
 * most about a tenth of the main thread however many clients watch.
 */
const restPerBusy = 9;

/** One history line as the stream sends it: `data` is the JSON text of spec 6.1. */
export interface FeedLine {
  id: number;
  message_id: string;
  data: string;
  /** The whole SSE event (`id`, `event: message_history`, `data`), framed once for every client. */
  frame: string;
}

/** Lines handed out together, oldest first. */
export interface FeedBatch {
  lines: readonly FeedLine[];
  /** Every line's frame, joined and encoded once: what a client without a filter is sent. */
  bytes: Buffer;
}

export type FeedSubscriber = (batch: FeedBatch) => void;

/** The frames of some lines as one chunk. */
export function framesOf(lines: readonly FeedLine[]): string {
  let text = '';
  for (const line of lines) text += line.frame;
  return text;
}

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
  const text = JSON.stringify(data);
  return {
    id: Number(row.id),
    message_id: row.message_id,
    data: text,
    frame: sseFrame('message_history', text, row.id),
  };
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

/** The ids of some ranges, each range in full (they come from our own trigger). */
function idsIn(ranges: readonly [number, number][]): number[] {
  const ids: number[] = [];
  for (const [lo, hi] of ranges) for (let id = lo; id <= hi; id++) ids.push(id);
  return ids;
}

/**
 * The feed's statements, given so that test/api/stats-plans.test.ts can EXPLAIN exactly them on
 * a long history the planner knows nothing about: each must reach its lines through the
 * primary key. Announced lines are read by their ids, not by `id between lo and hi` joined to
 * the ranges: for that join the planner guesses a ninth of the table per range and scanned
 * message_history whole on every read, so each batch cost more as the history grew (the
 * events benchmark's PostgreSQL CPU doubled over three rounds).
 */
export const feedStatements = {
  announced: (ids: readonly number[]) => ({
    sql: `select ${columns} from message_history where id = any(?::bigint[]) order by id`,
    params: [pgArray(ids)] as unknown[],
  }),
  /** Stored lines after `afterId` (of one message, when given), oldest first, at most `limit`. */
  replay: (afterId: number, messageId: string | undefined, limit: number) => ({
    sql: `select ${columns} from message_history
           where id > ?${messageId ? ' and message_id = ?' : ''} order by id limit ?`,
    params: (messageId ? [afterId, messageId, limit] : [afterId, limit]) as unknown[],
  }),
};

export class HistoryFeed {
  readonly #subscribers = new Set<FeedSubscriber>();
  readonly #db: Tx;
  /** Ranges announced and not read yet; read together by the next fetch. */
  #pending: [number, number][] = [];
  #draining = false;
  /** Lines read and not handed out yet. */
  #outgoing: FeedLine[] = [];
  #handOutScheduled = false;
  /** performance.now() before which the next batch waits (the rest after the last one). */
  #restUntil = 0;

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
    const { sql, params } = feedStatements.replay(afterId, messageId, limit);
    return (await this.#db.all<HistoryRow>(sql, params)).map(toLine);
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
        const { sql, params } = feedStatements.announced(idsIn(ranges));
        const rows = await this.#db.all<HistoryRow>(sql, params);
        for (const row of rows) this.#outgoing.push(toLine(row));
        this.#scheduleHandOut();
      } catch (error) {
        this.logger.error({ err: error }, 'could not read announced history lines');
      }
    }
  }

  #scheduleHandOut(): void {
    if (this.#handOutScheduled || this.#outgoing.length === 0) return;
    this.#handOutScheduled = true;
    const wait = this.#restUntil - performance.now();
    // setImmediate also lets reads that finish in the same turn join the batch.
    if (wait > 1) setTimeout(() => this.#handOut(), wait);
    else setImmediate(() => this.#handOut());
  }

  #handOut(): void {
    const lines = this.#outgoing;
    this.#outgoing = [];
    if (lines.length === 0 || this.#subscribers.size === 0) {
      this.#handOutScheduled = false;
      return;
    }
    const started = performance.now();
    const batch: FeedBatch = { lines, bytes: Buffer.from(framesOf(lines)) };
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(batch);
      } catch (error) {
        this.logger.error({ err: error }, 'an event stream subscriber failed');
      }
    }
    // Responses cork their writes and send them on the next tick; this tick comes after
    // theirs, so the cost measured includes the sockets' system calls.
    process.nextTick(() => {
      const finished = performance.now();
      this.#restUntil = finished + Math.min(this.limits.coalesceMaxMs, (finished - started) * restPerBusy);
      this.#handOutScheduled = false;
      this.#scheduleHandOut();
    });
  }
}
