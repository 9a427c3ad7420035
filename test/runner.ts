/**
 * Runs compiled test files as plain `node <file>` processes, `jobs` at a time, and writes one TAP
 * stream of them (each file a subtest, as tap's runner writes it) through the counts reporter.
 *
 * Not tap's runner: it starts every test process with its own module loaders (@tapjs/processinfo,
 * @tapjs/mock) and source maps on, and puts the loaders into NODE_OPTIONS of every process a test
 * starts, so each `pier serve` child and actor thread loaded every module through them too. That
 * cost a test file about 6 s of CPU of its 20 (test/api/services.test.ts: 13 s without them),
 * and the suite had no use for them (no coverage, no module mocks). The test files still use
 * tap's API; alone, each prints its TAP and exits non-zero when something failed.
 *
 * Each file runs in a process group of its own, killed when the file ends: whatever it started and
 * did not stop (a server left by a timed-out file) cannot hold ports, CPU or the output.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
// @ts-expect-error: plain JavaScript without types (a tap reporter module).
import CountsReporter from './counts-reporter.mjs';
import { idleMeter, type IdleMeter } from './cpu-idle.js';

export interface RunOptions {
  /** Where the files are, and each file's working directory. */
  cwd: string;
  jobs: number;
  /** tap's own timeout for a file, in seconds (a file may set a longer one for itself). */
  timeoutSeconds: number;
  env: NodeJS.ProcessEnv;
  /**
   * At most this many files at once while the cores sit idle (`jobs` when not given): one more
   * starts after each window of `idleWindowMs` in which `idleShareForMore` of the CPU was idle.
   */
  maxJobs?: number;
  /** What says how idle the cores were (test/cpu-idle.ts, /proc/stat); given by runner.test.ts. */
  idle?: IdleMeter;
  /** Where the TAP stream and its totals go: standard output unless given. */
  out?: NodeJS.WritableStream;
  /**
   * Files that load the machine (browsers, pier processes, PostgreSQL nodes): at most
   * `jobs - 1` of them run at once, the last job taking the others meanwhile.
   */
  heavy?: ReadonlySet<string>;
  /**
   * How long a file may run after tap has written its last line (the root test's `# time=`, at
   * the start of a line) before it is killed as one that does not exit: a handle left open, or
   * Node spinning over a leaked one, would otherwise hold its place for the whole stuck
   * timeout. 60 s unless given.
   */
  exitAfterEndMs?: number;
  /** Told of each file's timing as it ends (a run cut short still leaves what it measured). */
  onTiming?: (timing: FileTiming) => void;
}

/** How long the cores are watched before one more file starts, and how idle they must have been. */
const idleWindowMs = 3_000;
const idleShareForMore = 0.25;

/** The process groups of the files running now. */
const running = new Set<number>();

/** One file's run, for the timing report (test/timings.ts). */
export interface FileTiming {
  file: string;
  ok: boolean;
  /** Wall time from start to exit. */
  ms: number;
  /** CPU time (user + system) of the file's process and the processes it waited for; undefined off Linux. */
  cpuMs: number | undefined;
}

/**
 * Runs the files; resolves, after the totals line is written, with whether every file passed and
 * each file's timing in the order they ended.
 */
export async function runTestFiles(
  files: string[],
  options: RunOptions,
): Promise<{ passed: boolean; timings: FileTiming[]; failures: string[] }> {
  // The files' groups do not get a terminal's Ctrl-C: it is passed on, and the run ends.
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      for (const pid of running) killGroup(pid, 'SIGKILL');
      process.exit(130);
    });
  const reporter = new CountsReporter() as NodeJS.ReadWriteStream;
  const finished = new Promise<void>((resolve) =>
    reporter.pipe(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          (options.out ?? process.stdout).write(chunk, () => done());
        },
        final(done) {
          resolve();
          done();
        },
      }),
    ),
  );
  reporter.write('TAP version 14\n');
  let number = 0;
  let allPassed = true;
  const timings: FileTiming[] = [];
  const failures: string[] = [];
  const queue = [...files];
  const heavy = options.heavy ?? new Set<string>();
  const maxHeavy = Math.max(1, options.jobs - 1);
  let heavyRunning = 0;
  /** The next file in order, passing over heavy ones while as many as may run are running. */
  const next = (): string | undefined => {
    const at = heavyRunning < maxHeavy ? 0 : queue.findIndex((file) => !heavy.has(file));
    return at < 0 ? undefined : queue.splice(at, 1)[0];
  };
  /** The next file that is not heavy: only those start beyond `jobs`. */
  const nextLight = (): string | undefined => {
    const at = queue.findIndex((file) => !heavy.has(file));
    return at < 0 ? undefined : queue.splice(at, 1)[0];
  };
  /** One file run, its outcome written into the stream. */
  const runOne = async (file: string) => {
    const isHeavy = heavy.has(file);
    if (isHeavy) heavyRunning++;
    const outcome = await runFile(file, options).finally(() => {
      if (isHeavy) heavyRunning--;
    });
    allPassed &&= outcome.ok;
    const timing = { file, ok: outcome.ok, ms: outcome.ms, cpuMs: outcome.cpuMs };
    timings.push(timing);
    options.onTiming?.(timing);
    number++;
    const indented = outcome.output
      .replace(/^TAP version \d+\n/, '')
      .split('\n')
      .map((line) => (line ? `    ${line}` : line))
      .join('\n');
    const end = indented.endsWith('\n') || indented === '' ? '' : '\n';
    const problem = outcome.ok ? '' : `  ---\n  ${outcome.why}\n  ...\n`;
    if (!outcome.ok) failures.push(failureDigest(file, outcome));
    reporter.write(
      `# Subtest: ${file}\n${indented}${end}${outcome.ok ? 'ok' : 'not ok'} ${number} - ${file} # time=${outcome.ms}ms\n${problem}\n`,
    );
  };
  // Files start while fewer than `jobs` run; past that, one more light file at a time while the
  // cores were idle for a whole window (test/cpu-idle.ts), up to `maxJobs`: files that mostly wait
  // (retry timers, PostgreSQL, child processes) leave a fixed number of jobs a third of two cores idle.
  const maxJobs = Math.max(options.jobs, options.maxJobs ?? options.jobs);
  const meter = options.idle ?? idleMeter(idleWindowMs);
  const active = new Set<Promise<void>>();
  while (queue.length > 0 || active.size > 0) {
    const more = active.size >= options.jobs;
    const file =
      queue.length === 0
        ? undefined
        : !more
          ? next()
          : active.size < maxJobs && meter.idle() >= idleShareForMore
            ? nextLight()
            : undefined;
    if (file !== undefined) {
      const run: Promise<void> = runOne(file).finally(() => active.delete(run));
      active.add(run);
      // The file just started is not in the window that let it start.
      if (more) meter.restart();
      continue;
    }
    await Promise.race([...active, new Promise((resolve) => setTimeout(resolve, idleWindowMs / 4))]);
  }
  reporter.end(`1..${number}\n`);
  await finished;
  return { passed: allPassed, timings, failures };
}

/** How many of a failed file's `not ok` lines its digest names. */
const notOkLinesShown = 8;

/**
 * A failed file in a few lines: its name, why it failed, and its first `not ok` lines (innermost
 * first shows which assertion). The run prints these last, so that a log kept only by its tail,
 * as CI keeps it, still says what failed.
 */
function failureDigest(file: string, outcome: FileOutcome): string {
  const notOk = outcome.output
    .split('\n')
    .filter((line) => /^\s*not ok /.test(line))
    .slice(0, notOkLinesShown)
    .map((line) => `#     ${line.trim()}`);
  return [`# failed: ${file.replace(/\.js$/, '.ts')} (${outcome.why})`, ...notOk].join('\n');
}

export interface FileOutcome {
  ok: boolean;
  output: string;
  ms: number;
  /** See FileTiming.cpuMs. */
  cpuMs: number | undefined;
  why: string;
}

/**
 * CPU time (user + system, ms) of the processes this one has reaped so far, from /proc (Linux);
 * undefined elsewhere. Node gives no child's resource usage, but the kernel adds each reaped
 * child's (with the children it reaped in turn: a test's `pier serve`, its openssl runs) to its
 * parent's cutime and cstime, so the growth between two looks is what the files that exited
 * meanwhile used. Two files reaped in the same turn of the event loop are counted as one (the
 * first gets both, the second none): rare with files that run for seconds.
 */
function reapedChildrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces) in parentheses; cutime and cstime are 16 and 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[13]) + Number(fields[14]);
    // USER_HZ is 100 on every Linux Node runs on.
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}
/** What the processes reaped up to the last look used; first looked at as the first file starts (the compile before it is no file's). */
let reapedCpuMsSeen: number | undefined;

/** Loaded into each file's process: it says what holds a process that does not exit. */
const stillOpen = new URL('./still-open.mjs', import.meta.url).href;
/** How long a file that does not exit has to say what holds it before it is killed. */
const stillOpenAnswerMs = 1_000;

/** How long past tap's own timeout a file may run before it is killed from outside (one that is stuck). */
const stuckAfterMs = 10 * 60_000;

export function runFile(file: string, options: RunOptions): Promise<FileOutcome> {
  const started = Date.now();
  reapedCpuMsSeen ??= reapedChildrenCpuMs();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', stillOpen, path.join(options.cwd, file)], {
      cwd: options.cwd,
      env: { ...options.env, TAP_TIMEOUT: String(options.timeoutSeconds) },
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    });
    running.add(child.pid!);
    const chunks: Buffer[] = [];
    const exitAfterEndMs = options.exitAfterEndMs ?? 60_000;
    let notExiting: NodeJS.Timeout | undefined;
    let killedAsNotExiting = false;
    let lastLineStart = '';
    child.stdout.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // With the previous chunk's last line, so that a line cut between chunks is still seen.
      const text = lastLineStart + chunk.toString('utf8');
      lastLineStart = text.slice(text.lastIndexOf('\n') + 1).slice(0, 16);
      if (notExiting === undefined && /^# time=/m.test(text)) {
        notExiting = setTimeout(() => {
          killedAsNotExiting = true;
          // First asked what holds it (test/still-open.mjs), so the failure names the handle.
          signal(child.pid!, 'SIGUSR2');
          setTimeout(() => killGroup(child.pid!, 'SIGKILL'), stillOpenAnswerMs);
        }, exitAfterEndMs);
      }
    });
    let killedAsStuck = false;
    const stuck = setTimeout(
      () => {
        killedAsStuck = true;
        killGroup(child.pid!, 'SIGKILL');
      },
      options.timeoutSeconds * 1000 + stuckAfterMs,
    );
    let cpuMs: number | undefined;
    child.on('exit', () => {
      // At exit the child has just been reaped; its whole group is killed below, not waited for.
      const now = reapedChildrenCpuMs();
      cpuMs = now === undefined || reapedCpuMsSeen === undefined ? undefined : now - reapedCpuMsSeen;
      reapedCpuMsSeen = now;
    });
    child.on('close', (code, signal) => {
      clearTimeout(stuck);
      clearTimeout(notExiting);
      // What the file started and left running goes with it.
      killGroup(child.pid!, 'SIGKILL');
      running.delete(child.pid!);
      const output = Buffer.concat(chunks).toString('utf8');
      const held = /^# still open: (.*)$/m.exec(output)?.[1];
      const why = killedAsStuck
        ? `killed: still running ${Math.round(stuckAfterMs / 60_000)} min after its timeout`
        : killedAsNotExiting
          ? `killed: its tests ended, and it had not exited ${exitAfterEndMs / 1000} s later` +
            (held ? `; still open: ${held}` : '')
          : signal
            ? `ended by ${signal}`
            : `exit code ${code}`;
      resolve({
        ok: code === 0 && !killedAsStuck && !killedAsNotExiting,
        output,
        ms: Date.now() - started,
        cpuMs,
        why,
      });
    });
  });
}

function killGroup(pid: number, name: NodeJS.Signals): void {
  signal(-pid, name);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // the process (or the group) has ended
  }
}
