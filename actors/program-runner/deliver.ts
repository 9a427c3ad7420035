/**
 * One delivery to the program runner: the document written to a directory of its own under
 * the work directory, the program run with the arguments filled in for this message, the
 * directory removed. Exit code 0 is delivered, with what the program printed; another exit
 * code, a signal, the timeout or a program that cannot start fails the attempt with the reason,
 * and the retry settings decide whether it is tried again.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { ClaimedDelivery, DeliveryOutcome } from '../../protocol/core-protocol.js';
import { openKept } from '../../storage/payloads/inline.js';
import { PayloadMissing, type PayloadStore } from '../../storage/payloads/store.js';
import { fillArgument, type ArgumentValues } from './arguments.js';
import type { ProgramRunnerSecrets, ProgramRunnerSettings } from './config.js';
import { runProgram, type ProgramRun } from './run.js';
import { limits } from '../../limits/limits.js';

/** The file name made one safe path segment: no separators or control characters, never . or .. */
export function runFileName(fileName: string, messageId: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = fileName.replace(/[/\\\u0000-\u001f\u007f]/g, '_');
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? messageId : cleaned;
}

/** Only these of pier's own environment reach the program: never its database or secret key. */
const passedThrough = ['PATH', 'LANG', 'LC_ALL', 'TZ'] as const;

function environmentFor(secrets: ProgramRunnerSecrets): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of passedThrough) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const { name, value } of secrets.environment ?? []) env[name] = value;
  return env;
}

function lastPart(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > limits.programOutputShownChars
    ? `…${trimmed.slice(-limits.programOutputShownChars)}`
    : trimmed;
}

/** What the program printed, as the result says it. */
function outputText(run: ProgramRun): string {
  const parts = [];
  if (run.stdout.trim() !== '') parts.push(`output: ${lastPart(run.stdout)}`);
  if (run.stderr.trim() !== '') parts.push(`errors: ${lastPart(run.stderr)}`);
  if (run.truncated) parts.push('(output past 4 KiB dropped)');
  return parts.length > 0 ? `; ${parts.join('; ')}` : '; no output';
}

export function outcomeOf(run: ProgramRun, settings: ProgramRunnerSettings): DeliveryOutcome {
  const name = path.basename(settings.program);
  const took = `${run.milliseconds} ms`;
  if (run.startError)
    return { ok: false, retryable: true, error: `${name} could not start: ${run.startError}` };
  if (run.timedOut) {
    return {
      ok: false,
      retryable: true,
      error: `${name} ran past its ${settings.timeout_seconds} s timeout and was killed${outputText(run)}`,
    };
  }
  if (run.exitCode === 0) return { ok: true, detail: `${name} exited with 0 in ${took}${outputText(run)}` };
  const end =
    run.exitCode === null ? `was ended by ${run.signal ?? 'a signal'}` : `exited with ${run.exitCode}`;
  return { ok: false, retryable: true, error: `${name} ${end} after ${took}${outputText(run)}` };
}

export class ProgramRunner {
  constructor(
    private readonly settings: ProgramRunnerSettings,
    private readonly secrets: ProgramRunnerSecrets,
    private readonly store: PayloadStore,
  ) {}

  async deliver(delivery: ClaimedDelivery): Promise<DeliveryOutcome> {
    const m = delivery.message;
    // One directory per attempt, so two messages with one file name never meet.
    const directory = path.join(this.settings.work_directory, `${m.id}-${delivery.attempt}`);
    const file = path.join(directory, runFileName(m.file_name, m.id));
    await rm(directory, { recursive: true, force: true });
    await mkdir(directory, { recursive: true, mode: 0o700 });
    try {
      try {
        const body = await openKept(
          this.store,
          { messageId: m.id, stage: delivery.payload.stage },
          delivery.payload.content,
        );
        await pipeline(body, createWriteStream(file, { mode: 0o600 }));
      } catch (error) {
        if (error instanceof PayloadMissing) return { ok: false, retryable: false, error: error.message };
        throw error;
      }
      const values: ArgumentValues = {
        file,
        fileName: m.file_name,
        messageId: m.id,
        from: m.from,
        to: m.to,
        direction: m.direction,
        size: String(delivery.payload.size_bytes),
        attempt: String(delivery.attempt),
      };
      const run = await runProgram({
        program: this.settings.program,
        args: this.settings.arguments.map((template) => fillArgument(template, values)),
        cwd: directory,
        env: environmentFor(this.secrets),
        timeoutMs: this.settings.timeout_seconds * 1000,
      });
      return outcomeOf(run, this.settings);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
}
