/**
 * Where the `pier` command writes and which environment and input it reads. A process run of
 * `pier` uses its own streams and environment; tests run commands in the test's process with
 * their own (test/helpers/pier-shell.ts), which spares each command a Node start and a second
 * of module loading.
 */
import type { Readable } from 'node:stream';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Where `pier users passwd` reads the password. */
  stdin: Readable & { isTTY?: boolean };
  /** Standard error is a terminal (a progress bar is redrawn in place). */
  errIsTty: boolean;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  get env() {
    return process.env;
  },
  get stdin() {
    return process.stdin;
  },
  get errIsTty() {
    return process.stderr.isTTY === true;
  },
};

let current: CliIo = processIo;

/** The streams and environment of the command running now. */
export function cliIo(): CliIo {
  return current;
}

/** Runs `work` with `io` as the command's streams and environment (one command at a time). */
export async function withIo<T>(io: CliIo, work: () => Promise<T>): Promise<T> {
  const before = current;
  current = io;
  try {
    return await work();
  } finally {
    current = before;
  }
}

/** One line to standard output. */
export function say(line: string): void {
  current.out(`${line}\n`);
}
