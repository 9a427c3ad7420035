/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for tests that
 * scrape `/metrics`: every line must be a HELP, a TYPE or a sample of a declared family, label
 * values are unescaped, and a malformed line fails the test instead of being skipped.
 */

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, `x_count` for a histogram `x`). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string, line: string): number {
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`Not a sample value in: ${line}`);
  return value;
}

/** `{a="x",b="y\"z"}` from position `at` (the `{`): the labels and the position after `}`. */
function parseLabels(line: string, at: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = at + 1;
  for (;;) {
    if (line[i] === '}') return { labels, end: i + 1 };
    const eq = line.indexOf('=', i);
    const name = line.slice(i, eq);
    if (eq < 0 || !labelName.test(name) || line[eq + 1] !== '"') throw new Error(`Bad label in: ${line}`);
    if (name in labels) throw new Error(`Label ${name} twice in: ${line}`);
    let value = '';
    let j = eq + 2;
    for (; j < line.length && line[j] !== '"'; j++) {
      if (line[j] !== '\\') value += line[j];
      else {
        const next = line[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`Bad escape in: ${line}`);
      }
    }
    if (j >= line.length) throw new Error(`Unterminated label value in: ${line}`);
    labels[name] = value;
    i = j + 1;
    if (line[i] === ',') i++;
    else if (line[i] !== '}') throw new Error(`Expected , or } in: ${line}`);
  }
}

/** The family a sample belongs to: itself, or the histogram/summary whose suffix it carries. */
function familyOf(families: Map<string, Family>, sample: string): Family | undefined {
  const own = families.get(sample);
  if (own) return own;
  const base = sample.replace(/_(bucket|sum|count)$/, '');
  const family = families.get(base);
  return family && (family.type === 'histogram' || family.type === 'summary') ? family : undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (!metricName.test(name)) throw new Error(`Bad metric name in: ${line}`);
      const family = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
      if (kind === 'HELP') family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      else if (['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest))
        family.type = rest as Family['type'];
      else throw new Error(`Bad TYPE in: ${line}`);
      families.set(name, family);
      continue;
    }
    if (line.startsWith('#')) continue; // a comment
    const nameEnd = line.search(/[{ ]/);
    const name = line.slice(0, nameEnd);
    if (nameEnd <= 0 || !metricName.test(name)) throw new Error(`Bad sample in: ${line}`);
    let rest = nameEnd;
    let labels: Record<string, string> = {};
    if (line[nameEnd] === '{') ({ labels, end: rest } = parseLabels(line, nameEnd));
    const [value, timestamp, extra] = line.slice(rest).trim().split(/\s+/);
    if (value === undefined || extra !== undefined || (timestamp !== undefined && !/^-?\d+$/.test(timestamp)))
      throw new Error(`Bad sample in: ${line}`);
    const family = familyOf(families, name);
    if (!family) throw new Error(`Sample of an undeclared family: ${line}`);
    family.samples.push({ name, labels, value: parseValue(value, line) });
  }
  return families;
}

/** The value of the one sample named `name` whose labels include `labels`; 0 when there is none. */
export function valueOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const family = familyOf(families, name);
  const matching = (family?.samples ?? []).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matching.length > 1)
    throw new Error(`${matching.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matching[0]?.value ?? 0;
}
