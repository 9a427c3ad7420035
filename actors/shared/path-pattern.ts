/**
 * Path patterns such as `{to}/{filename}`: the file poller reads parties and the file name
 * out of a path, the file writer builds a path from them. One grammar serves both, and the file
 * and SFTP pollers check their patterns and directories with the same functions.
 */

export type Placeholder = 'from' | 'to' | 'filename' | 'id';
const placeholderText = /\{([^{}]*)\}/g;

/** Why a pattern cannot be used, or undefined when it is fine. */
export function patternProblem(pattern: string, allowed: readonly Placeholder[]): string | undefined {
  if (pattern === '') return 'Must not be empty';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(pattern)) return 'Must not contain control characters';
  if (pattern.startsWith('/')) return 'Must be a relative path';
  const segments = pattern.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) {
    return 'Must not contain empty, . or .. segments';
  }
  const seen = new Set<string>();
  for (const [, name] of pattern.matchAll(placeholderText)) {
    if (!allowed.includes(name as Placeholder)) {
      return `Unknown placeholder {${name}}; use ${allowed.map((a) => `{${a}}`).join(', ')}`;
    }
    if (seen.has(name!)) return `The placeholder {${name}} appears twice`;
    seen.add(name!);
  }
  if (/[{}]/.test(pattern.replace(placeholderText, ''))) return 'Has an unmatched { or }';
  if (!seen.has('filename')) return 'Must contain {filename}';
  if (!segments.at(-1)!.includes('{filename}')) return '{filename} must be in the last part of the path';
  return undefined;
}

export function placeholdersOf(pattern: string): Set<Placeholder> {
  return new Set([...pattern.matchAll(placeholderText)].map((m) => m[1] as Placeholder));
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export type PathValues = Partial<Record<Placeholder, string>>;

/**
 * A matcher for relative paths (with `/` separators). Parties match lazily, so
 * `{from}-{filename}` takes the party up to the first dash.
 */
export function pathMatcher(pattern: string): (relativePath: string) => PathValues | undefined {
  const names: Placeholder[] = [];
  let source = '';
  let last = 0;
  for (const m of pattern.matchAll(placeholderText)) {
    source += escapeRegex(pattern.slice(last, m.index));
    names.push(m[1] as Placeholder);
    source += m[1] === 'filename' ? '([^/]+)' : '([^/]+?)';
    last = m.index + m[0].length;
  }
  source += escapeRegex(pattern.slice(last));
  const regex = new RegExp(`^${source}$`);
  return (relativePath) => {
    const m = regex.exec(relativePath);
    if (!m) return undefined;
    const values: PathValues = {};
    names.forEach((name, i) => (values[name] = m[i + 1]));
    return values;
  };
}

/** A path segment made safe: no separators, no control characters, never `.` or `..`. */
function safeSegment(text: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = text.replace(/[/\\\u0000-\u001f\u007f]/g, '_');
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return '_';
  return cleaned;
}

/** The relative path a pattern gives for the values; each value becomes one safe segment. */
export function fillPattern(pattern: string, values: PathValues): string {
  return pattern.replace(placeholderText, (_m, name: Placeholder) => safeSegment(values[name] ?? ''));
}

/** A file name glob: `*` any run of characters, `?` one character (docs/api/plugin-configs.md file_pattern). */
export function globProblem(glob: string): string | undefined {
  if (glob === '') return 'Must not be empty';
  if (glob.includes('/')) return 'Must match file names, without /';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f]/.test(glob)) return 'Must not contain control characters';
  return undefined;
}

/** A poller's settings that say which files it takes (`file_pattern`) and whose they are. */
export interface PollerPatternSettings {
  /** Path of a file below the watched directory, with {from}, {to} and {filename}. */
  path_pattern: string;
  file_pattern: string;
  /** Sending party when path_pattern has no {from}. */
  from: string;
  /** Receiving party when path_pattern has no {to}. */
  to: string;
}

/** The problems of a poller's pattern settings, by field: a party the pattern does not name must be set. */
export function pollerPatternProblems(s: PollerPatternSettings): Record<string, string> {
  const problems: Record<string, string> = {};
  const patternIssue = patternProblem(s.path_pattern, ['from', 'to', 'filename']);
  if (patternIssue) problems.path_pattern = patternIssue;
  else {
    const used = placeholdersOf(s.path_pattern);
    if (!used.has('from') && s.from === '') problems.from = 'Required when path_pattern has no {from}';
    if (!used.has('to') && s.to === '') problems.to = 'Required when path_pattern has no {to}';
  }
  const globIssue = globProblem(s.file_pattern);
  if (globIssue) problems.file_pattern = globIssue;
  return problems;
}

/** Whether directory `dir` is `parent` or below it (both absolute, `/` separators). */
function inside(dir: string, parent: string): boolean {
  const trim = (p: string) => p.replace(/\/+$/, '') || '/';
  const d = trim(dir);
  const p = trim(parent);
  return d === p || d.startsWith(p === '/' ? '/' : `${p}/`);
}

/**
 * Why a poller's `processed` directory cannot take the files of the directory it watches, the
 * setting named `watchedField`: were either inside the other, moved files would be taken again.
 */
export function processedDirectoryProblem(
  processed: string,
  watched: string,
  watchedField: string,
): string | undefined {
  if (inside(processed, watched)) return `Must not be ${watchedField} or inside it`;
  if (inside(watched, processed)) return `Must not contain ${watchedField}`;
  return undefined;
}

export function globMatcher(glob: string): (name: string) => boolean {
  const source = [...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : escapeRegex(c))).join('');
  const regex = new RegExp(`^${source}$`, 's');
  return (name) => regex.test(name);
}
