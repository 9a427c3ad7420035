/**
 * The message history as it is written, for the event stream (docs/api/events.md#message-history-stream). One feed per process
 * follows message_history while someone subscribes: woken by `pier_history` (announced by a
 * trigger on message_history, from any process), it finds up to which id every line is settled
 * (settled-ids.ts), reads the lines up to there once, in id order, and hands each line, framed
 * once, to every subscriber. The live order is then the order a replay after `Last-Event-ID`
 * reads, so a client that reconnects after any line gets what follows it, without a gap: ids
 * are taken before commit, and handing lines out in commit order lost, on resume, the lines
 * that committed after a larger id. Where the server has synchronous standbys, lines leave only
 * once one of them has them (replicated.ts), so a failover cannot take back a line a subscriber
 * got. A process nobody watches pays nothing.
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
import { onOneConnection, type Tx } from '../../storage/sql.js';
import { defaultSettleTiming, SettledIds, type SettleTiming } from './settled-ids.js';
import { sseFrame } from './sse-frame.js';
import { readIsReplicated } from './replicated.js';
import type { HistoryRowAsText } from '../../storage/repositories/messages.js';
import { limits } from '../../limits/limits.js';

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
  /** How the feed waits for the lines still in flight (settled-ids.ts). */
  settle: SettleTiming;
}

/**
 * A browser reconnects 3 s after its stream breaks (the `retry` the stream sends), and a busy
 * gateway writes 1,000–2,000 history lines a second (four or five per message at 300–500
 * messages/s): at 1,000 lines, a reconnect after a proxy's cut or one process's restart, and a
 * tab busy for half a second, were told to reload. 10,000 lines (about 3 MB of frames) cover
 * the retry at that pace, and bound what one client costs.
 */
export const defaultStreamLimits: StreamLimits = {
  replay: 10_000,
  buffer: 10_000,
  keepAliveMs: 20_000,
  coalesceMaxMs: 100,
  settle: defaultSettleTiming,
};

/** One history line as the stream sends it: `data` is the JSON text of docs/api/events.md#message-history-stream. */
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

export interface Subscription {
  /**
   * The id after which the subscriber gets every line; the lines up to it are settled, so a
   * replay read now finds all of them. Resolves once the feed follows the table (at once when
   * it already does).
   */
  from: Promise<number>;
  unsubscribe(): void;
}

/** The frames of some lines as one chunk. */
export function framesOf(lines: readonly FeedLine[]): string {
  let text = '';
  for (const line of lines) text += line.frame;
  return text;
}

/** The rows of message_history as this feed reads them (storage/repositories/messages.ts declares them). */
type HistoryRow = HistoryRowAsText;

/** created_at as RFC 3339 in UTC with milliseconds, as the messages API shows it. */
const columns = `id, message_id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, kind, old_status, new_status, text, delivery_id, target, old_state, new_state`;

function toLine(row: HistoryRow): FeedLine {
  const data: Record<string, unknown> = {
    id: Number(row.id),
    message_id: row.message_id,
    created_at: row.created_at,
    kind: row.kind,
  };
  // Only the fields the line has (docs/api/events.md#message-history-stream "as applicable").
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

/**
 * The feed's statements, given so that test/api/stats-plans.test.ts can EXPLAIN exactly them on
 * a long history the planner knows nothing about: each must reach its lines through the
 * primary key (or, for one message, its index), never scan message_history whole.
 */
export const feedStatements = {
  /** Lines after `afterId` up to `upTo` (of one message, when given), oldest first, at most `limit`. */
  between: (afterId: number, upTo: number, messageId: string | undefined, limit: number) => ({
    sql: `select ${columns} from message_history
           where id > ? and id <= ?${messageId ? ' and message_id = ?' : ''} order by id limit ?`,
    params: (messageId ? [afterId, upTo, messageId, limit] : [afterId, upTo, limit]) as unknown[],
  }),
};

interface Joining {
  subscriber: FeedSubscriber;
  start: (from: number) => void;
}

export class HistoryFeed {
  /** Subscribers the feed hands batches to. */
  readonly #subscribers = new Set<FeedSubscriber>();
  /** Subscribers waiting for the feed to find where it starts following. */
  #joining: Joining[] = [];
  readonly #orm: Orm;
  readonly #settled: SettledIds;
  readonly #listener: DatabaseListener;
  /** The loop that follows the table runs; one at a time keeps lines in id order. */
  #following = false;
  /** Woken since the loop last looked at the table. */
  #woken = false;
  #wakeLoop: (() => void) | undefined;
  /** Every line up to this id is read; undefined while the feed does not follow the table. */
  #readUpTo: number | undefined;
  /** Every line up to this id was handed out, or came before the subscriptions. */
  #handedOut = 0;
  /** Lines read and not handed out yet, and the id up to which they are all the lines. */
  #outgoing: FeedLine[] = [];
  #outgoingUpTo = 0;
  #handOutScheduled = false;
  /** The last read found its lines on no synchronous standby (said once until one has them). */
  #unreplicated = false;
  /** performance.now() before which the next batch waits (the rest after the last one). */
  #restUntil = 0;

  readonly limits: StreamLimits;

  constructor(
    orm: Orm,
    listener: DatabaseListener,
    private readonly logger: Logger,
    limits: Partial<StreamLimits> = {},
  ) {
    this.#orm = orm;
    this.limits = { ...defaultStreamLimits, ...limits };
    this.#settled = new SettledIds(this.limits.settle);
    this.#listener = listener;
  }

  /** Subscribers the feed hands lines to (those still joining not counted). */
  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  subscribe(subscriber: FeedSubscriber): Subscription {
    let joining: Joining | undefined;
    let from: Promise<number>;
    if (this.#readUpTo !== undefined) {
      this.#subscribers.add(subscriber);
      from = Promise.resolve(this.#handedOut);
    } else {
      from = new Promise((start) => {
        joining = { subscriber, start };
        this.#joining.push(joining);
      });
      this.#follow();
    }
    return {
      from,
      unsubscribe: () => {
        this.#subscribers.delete(subscriber);
        if (joining) {
          this.#joining = this.#joining.filter((j) => j !== joining);
          // Whoever awaits it checks that it closed.
          joining.start(0);
        }
        if (this.#subscribers.size + this.#joining.length === 0) this.#wake();
      },
    };
  }

  /**
   * Stored lines after `afterId` up to `upTo` (of one message, when given), oldest first, at
   * most `limit`; undefined when the server they were read on has them on no synchronous
   * standby yet (replicated.ts: a replay read on a primary a failover is leaving could show
   * lines it is about to lose).
   */
  async between(
    afterId: number,
    upTo: number,
    messageId: string | undefined,
    limit: number,
  ): Promise<FeedLine[] | undefined> {
    const { sql, params } = feedStatements.between(afterId, upTo, messageId, limit);
    return onOneConnection(this.#orm, async (db) => {
      const rows = await db.all<HistoryRow>(sql, params);
      return (await readIsReplicated(db)) ? rows.map(toLine) : undefined;
    });
  }

  get #watched(): boolean {
    return this.#subscribers.size + this.#joining.length > 0;
  }

  #wake(): void {
    this.#woken = true;
    this.#wakeLoop?.();
  }

  #follow(): void {
    if (this.#following) return;
    this.#following = true;
    void this.#loop();
  }

  async #loop(): Promise<void> {
    // Announcements are heard only while someone watches: unheard, they wake neither this thread
    // nor this process's listening backend, at every acceptance of every process. Listening
    // before the first look, so no line committed after it goes unannounced.
    const deaf = this.#listener.on(historyChannel, () => this.#wake());
    await this.#listener.settled();
    while (this.#watched) {
      this.#woken = false;
      const looked = performance.now();
      try {
        // The mark and the lines up to it from one server (settled-ids.ts).
        const watched = await onOneConnection(this.#orm, async (db) => {
          const mark = await this.#settled.mark(db, this.#readUpTo ?? 0, () => !this.#watched);
          if (!this.#watched) return false;
          if (this.#readUpTo === undefined) this.#start(mark);
          else if (mark > this.#readUpTo) await this.#read(db, mark);
          return true;
        });
        if (!watched) break;
      } catch (error) {
        this.logger.error({ err: error }, 'could not read the history lines');
        await this.#rest(limits.feedRetryMs);
        continue;
      }
      if (!this.#woken) await this.#rest(limits.feedUnwokenLookMs);
      const early = looked + limits.feedLookEveryMs - performance.now();
      if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
    }
    // Cleared in the same turn as the last check, so a subscriber that comes next starts afresh.
    deaf();
    this.#following = false;
    this.#readUpTo = undefined;
    this.#outgoing = [];
  }

  /** Lines up to `mark` came before every subscription: the joining subscribers start after it. */
  #start(mark: number): void {
    this.#readUpTo = this.#handedOut = this.#outgoingUpTo = mark;
    const joining = this.#joining;
    this.#joining = [];
    for (const { subscriber, start } of joining) {
      this.#subscribers.add(subscriber);
      start(mark);
    }
  }

  /**
   * Reads the lines after what was read up to `mark`, page by page, and queues them to be handed
   * out once they are on a synchronous standby (replicated.ts); until then nothing is queued, and
   * the next look reads them again.
   */
  async #read(db: Tx, mark: number): Promise<void> {
    let after = this.#readUpTo ?? mark;
    for (;;) {
      const { sql, params } = feedStatements.between(after, mark, undefined, limits.feedReadPageRows);
      const rows = await db.all<HistoryRow>(sql, params);
      // Also with no line read: the mark read on a server a failover is leaving may pass ids the
      // new primary has not given out yet.
      if (!(await readIsReplicated(db))) {
        if (!this.#unreplicated)
          this.logger.warn(
            'the history lines read are on no synchronous standby: the event stream waits for one',
          );
        this.#unreplicated = true;
        return;
      }
      this.#unreplicated = false;
      for (const row of rows) this.#outgoing.push(toLine(row));
      const whole = rows.length < limits.feedReadPageRows;
      after = whole ? mark : Number(rows[rows.length - 1]!.id);
      this.#readUpTo = this.#outgoingUpTo = after;
      this.#scheduleHandOut();
      if (whole || !this.#watched) return;
    }
  }

  /** Until a wake or `ms`. */
  #rest(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wakeLoop = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakeLoop = done;
    });
  }

  #scheduleHandOut(): void {
    if (this.#handOutScheduled || this.#outgoingUpTo <= this.#handedOut) return;
    this.#handOutScheduled = true;
    const wait = this.#restUntil - performance.now();
    // setImmediate also lets reads that finish in the same turn join the batch.
    if (wait > 1) setTimeout(() => this.#handOut(), wait);
    else setImmediate(() => this.#handOut());
  }

  #handOut(): void {
    const lines = this.#outgoing;
    this.#outgoing = [];
    // A subscriber that comes from now on joins after these lines.
    this.#handedOut = Math.max(this.#handedOut, this.#outgoingUpTo);
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
      this.#restUntil =
        finished + Math.min(this.limits.coalesceMaxMs, (finished - started) * limits.feedRestPerBusy);
      this.#handOutScheduled = false;
      this.#scheduleHandOut();
    });
  }
}
