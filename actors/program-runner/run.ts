/**
 * One run of a program: started directly with its argv (no shell), in a process group of its
 * own so that a timeout kills the program and whatever it started, with its output kept up to
 * a bound. The run always ends: by exit, by a signal, by the timeout, or by a failure to start.
 */
import { spawn } from 'node:child_process';
import { limits } from '../../limits/limits.js';

export interface ProgramRun {
  /** The exit code, or null when a signal or the timeout ended it, or it never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Why it could not start (ENOENT, EACCES), when it did not. */
  startError?: string;
  stdout: string;
  stderr: string;
  /** Whether output past the bound was dropped. */
  truncated: boolean;
  milliseconds: number;
}

export interface RunRequest {
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
}

class BoundedText {
  #chunks: Buffer[] = [];
  #kept = 0;
  dropped = false;

  add(chunk: Buffer): void {
    const room = limits.programOutputKeptBytes - this.#kept;
    if (room <= 0) {
      this.dropped = true;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.dropped = true;
    this.#chunks.push(part);
    this.#kept += part.length;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

/** Kills the run's whole process group: a script's own children go with it. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

export function runProgram(request: RunRequest): Promise<ProgramRun> {
  const started = performance.now();
  const stdout = new BoundedText();
  const stderr = new BoundedText();
  return new Promise((resolve) => {
    let timedOut = false;
    let settled = false;
    const child = spawn(request.program, request.args, {
      cwd: request.cwd,
      env: request.env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null, startError?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A child the program left running would hold the pipes open: the run ends at exit.
      killGroup(child.pid);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        exitCode,
        signal,
        timedOut,
        ...(startError ? { startError } : {}),
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.dropped || stderr.dropped,
        milliseconds: Math.round(performance.now() - started),
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, request.timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.add(chunk));
    child.on('error', (error: NodeJS.ErrnoException) =>
      finish(null, null, `${error.code ?? 'Error'}: ${error.message}`),
    );
    // The output is complete at 'close'; a child the program left behind can hold the pipes
    // open past its exit, so the run ends at most a moment after the exit.
    child.on('exit', (code, signal) => {
      child.on('close', () => finish(code, signal));
      setTimeout(() => finish(code, signal), 250);
    });
  });
}
