/**
 * What `pier doctor` prints: one line per check with ✔ or ✘, and under each failure what is
 * wrong and how to fix it; or the same as JSON for scripts. A check that could not run because
 * one before it failed (no database, no migrations) is shown as skipped and fails nothing by
 * itself: the failure that caused it already fails the run.
 */

export type CheckStatus = 'ok' | 'failed' | 'skipped';

export interface CheckResult {
  /** Stable name for scripts: `database`, `payload-store`, … */
  id: string;
  /** What is checked, in words. */
  title: string;
  status: CheckStatus;
  /** What was found: on success a short summary, on failure the cause. */
  detail: string;
  /** One line per failing item (a certificate, a port, a partner); empty when none. */
  problems: string[];
  /** What the operator does about a failure; empty on success. */
  fix: string;
}

export const passed = (id: string, title: string, detail: string): CheckResult => ({
  id,
  title,
  status: 'ok',
  detail,
  problems: [],
  fix: '',
});

export const failed = (
  id: string,
  title: string,
  detail: string,
  fix: string,
  problems: string[] = [],
): CheckResult => ({ id, title, status: 'failed', detail, problems, fix });

export const skipped = (id: string, title: string, why: string): CheckResult => ({
  id,
  title,
  status: 'skipped',
  detail: why,
  problems: [],
  fix: '',
});

const marks: Record<CheckStatus, string> = { ok: '✔', failed: '✘', skipped: '-' };

/** The checklist for a terminal. */
export function renderText(results: readonly CheckResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${marks[r.status]} ${r.title}: ${r.detail}`);
    for (const problem of r.problems) lines.push(`    - ${problem}`);
    if (r.fix) lines.push(`    fix: ${r.fix}`);
  }
  const failures = results.filter((r) => r.status === 'failed').length;
  lines.push(failures === 0 ? 'All checks passed.' : `${failures} check${failures === 1 ? '' : 's'} failed.`);
  return `${lines.join('\n')}\n`;
}

/** The checklist for scripts: `ok` is false when any check failed, as the exit code says. */
export function renderJson(results: readonly CheckResult[]): string {
  return `${JSON.stringify({ ok: allPassed(results), checks: results }, null, 2)}\n`;
}

export function allPassed(results: readonly CheckResult[]): boolean {
  return results.every((r) => r.status !== 'failed');
}
