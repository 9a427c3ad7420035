/**
 * The suite's per-file timing report: every run of test/run.ts writes it (slowest first) to
 * .test-output/timings.txt and prints its top ten, so the next slow file is seen; the next run
 * reads it back to start the longest files first.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FileTiming } from './runner.js';

const seconds = (ms: number | undefined) => (ms === undefined ? '-' : (ms / 1000).toFixed(1));

/** One file's line of the report. */
const reportLine = (timing: FileTiming) =>
  `${seconds(timing.ms).padStart(8)} ${seconds(timing.cpuMs).padStart(7)}  ${timing.ok ? 'ok    ' : 'FAILED'}  ${timing.file}`;

/**
 * Starts the log of the files ended so far (`file`, in the order they end), so that a run cut
 * short still shows what it measured; returns what adds a file's line to it.
 */
export function timingLog(file: string): (timing: FileTiming) => void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, '# wall_s   cpu_s  result  file, in the order the files ended\n');
  return (timing) => appendFileSync(file, `${reportLine(timing)}\n`);
}

/** The report's text: a heading with the totals, then one line per file, slowest first. */
export function timingReport(
  timings: FileTiming[],
  { wallMs, jobs, maxJobs = jobs, cores }: { wallMs: number; jobs: number; maxJobs?: number; cores: number },
): string {
  const slowest = [...timings].sort((a, b) => b.ms - a.ms);
  const sum = (pick: (timing: FileTiming) => number | undefined) =>
    timings.reduce((total, timing) => total + (pick(timing) ?? 0), 0);
  const cpuMs = sum((t) => t.cpuMs);
  // No run ends before its slowest file, nor before its CPU time spread over every core.
  const lines = [
    `# ${timings.length} test files, ${jobs} at a time${maxJobs > jobs ? ` (up to ${maxJobs} while the cores were idle)` : ''} on ${cores} cores: ${seconds(wallMs)} s wall in all`,
    `# summed over the files: ${seconds(sum((t) => t.ms))} s wall, ${seconds(cpuMs)} s CPU (user + system, with the processes each started)`,
    `# bounds: the slowest file ${seconds(slowest[0]?.ms ?? 0)} s; the CPU over ${cores} cores ${seconds(cpuMs / cores)} s`,
    '# wall_s   cpu_s  result  file',
    ...slowest.map(reportLine),
  ];
  return `${lines.join('\n')}\n`;
}

/** How many lines the report's heading takes: the ten slowest files follow it. */
const headingLines = 4;

/** Writes the report to `file` and returns its first lines (the heading and the ten slowest). */
export function writeTimingReport(file: string, report: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, report);
  return report
    .trimEnd()
    .split('\n')
    .slice(0, headingLines + 10)
    .join('\n');
}

/** Each file's wall time (ms) in an earlier report at `file`; empty when there is none. */
export function earlierTimings(file: string): Map<string, number> {
  const times = new Map<string, number>();
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return times;
  }
  for (const line of text.split('\n')) {
    const match = /^\s*([\d.]+)\s+\S+\s+\S+\s+(\S+)$/.exec(line);
    if (match) times.set(match[2]!, Number(match[1]) * 1000);
  }
  return times;
}
