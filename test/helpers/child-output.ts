/** The text a child process writes, collected as it writes it. */
import type { Readable } from 'node:stream';

export interface ChildOutput {
  stdout: string;
  stderr: string;
}

/** Collects `child`'s stdout and stderr; the fields grow while it runs. */
export function collectOutput(child: { stdout: Readable; stderr: Readable }): ChildOutput {
  const output: ChildOutput = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (output.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output.stderr += c.toString()));
  return output;
}
