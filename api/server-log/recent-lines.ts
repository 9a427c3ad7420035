/**
 * The server log's most recent lines, kept in memory for administrators to read in the web UI
 * (GET /server-log). Each line is kept as the logger wrote it, after its redaction, and only
 * parsed when someone reads: keeping a line costs an array slot, not a JSON parse on the hot
 * path. A line too long to be worth showing (a huge error) is kept cut, marked as such.
 */
import { redactPaths } from '../logger.js';
import { logLevels, recentLineCapacity, type LogLevelName } from '../schemas/server-log.js';
import { limits } from '../../limits/limits.js';
import { pinoLevelNumbers } from '../../protocol/worker-host/start-data.js';

const levelNumbers: Record<LogLevelName, number> = pinoLevelNumbers;

export interface RecentLine {
  time: string;
  level: LogLevelName;
  /** The part of pier that wrote it: a plugin instance's type, else its component, else `http` or `server`. */
  component: string;
  msg: string;
  /** The line's other fields (request id, message id, error…), secrets censored. */
  fields: Record<string, unknown>;
}

export interface RecentQuery {
  /** This level and above. */
  level: LogLevelName;
  component?: string | undefined;
  limit: number;
}

// Names censored at any depth on reading: the logger censors them at the top level only (its cost).
const secretNames = new Set(redactPaths.map((p) => p.split('.').pop()!));
// Fields shown elsewhere in the line, or noise on a page.
const shownApart = new Set(['time', 'level', 'msg', 'component', 'pid', 'hostname', 'v']);

function scrub(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = secretNames.has(key.toLowerCase()) ? '[redacted]' : scrub(v, depth + 1);
  }
  return out;
}

function levelName(level: unknown): LogLevelName {
  const n = typeof level === 'number' ? level : 30;
  return [...logLevels].reverse().find((l) => levelNumbers[l] <= n) ?? 'trace';
}

function componentOf(line: Record<string, unknown>): string {
  // An instance's lines come through the supervisor's logger: its type says more than `supervisor`.
  if (typeof line.instance === 'string') return line.instance.split(':')[0] ?? line.instance;
  if (typeof line.component === 'string') return line.component;
  if (line.request_id !== undefined) return 'http';
  return 'server';
}

function parse(raw: string): RecentLine | undefined {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(line)) if (!shownApart.has(key)) fields[key] = value;
  return {
    time: typeof line.time === 'string' ? line.time : new Date(Number(line.time)).toISOString(),
    level: levelName(line.level),
    component: componentOf(line),
    msg: typeof line.msg === 'string' ? line.msg : '',
    fields: scrub(fields) as Record<string, unknown>,
  };
}

export class RecentLog {
  readonly #lines: string[] = [];
  #next = 0;

  constructor(readonly capacity = recentLineCapacity) {}

  /** Keeps one serialized line (pino's streamWrite hook); answers it unchanged. */
  keep = (line: string): string => {
    const kept =
      line.length <= limits.serverLogLineChars
        ? line
        : JSON.stringify({ ...this.#headOf(line), msg: `(a line of ${line.length} characters, cut)` });
    if (this.#lines.length < this.capacity) this.#lines.push(kept);
    else this.#lines[this.#next] = kept;
    this.#next = (this.#next + 1) % this.capacity;
    return line;
  };

  #headOf(line: string): Record<string, unknown> {
    const level = /"level":(\d+)/.exec(line)?.[1];
    const time = /"time":"([^"]+)"/.exec(line)?.[1];
    const component = /"component":"([^"]+)"/.exec(line)?.[1];
    return { level: Number(level ?? 30), time: time ?? new Date().toISOString(), component };
  }

  /** Oldest first, as written. */
  #inOrder(): string[] {
    if (this.#lines.length < this.capacity) return [...this.#lines];
    return [...this.#lines.slice(this.#next), ...this.#lines.slice(0, this.#next)];
  }

  /** Newest first: the lines at `level` and above, of one component when asked. */
  read(query: RecentQuery): { lines: RecentLine[]; components: string[]; kept: number } {
    const all = this.#inOrder()
      .map(parse)
      .filter((l) => l !== undefined);
    const components = [...new Set(all.map((l) => l.component))].sort();
    const minimum = levelNumbers[query.level];
    const lines = all
      .filter((l) => levelNumbers[l.level] >= minimum)
      .filter((l) => query.component === undefined || l.component === query.component)
      .reverse()
      .slice(0, query.limit);
    return { lines, components, kept: all.length };
  }
}
