/**
 * Checking an SFTP instance's way to its server, step by step, without transferring a message:
 * the host name resolves, a TCP connection opens, the server's host key is the pinned one, the
 * login is accepted, the directories can be listed, and a probe file can be written and
 * removed. A step runs only when the ones before it passed; the first failure is the problem.
 * The fingerprint the server presents is part of the answer, so a first contact shows the key
 * for the operator to confirm. Nothing here reports a password or a key.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { upload } from './upload.js';
import { connectSteps, openSession, SftpConnectError, type SftpSession } from './connect.js';
import type { SftpEndpoint, SftpSecrets } from './fields.js';
import { Remote } from './remote.js';

export const sftpCheckSteps = ['resolve', 'connect', 'host_key', 'authenticate', 'list', 'write'] as const;
export type SftpCheckStep = (typeof sftpCheckSteps)[number];

export interface SftpStepResult {
  status: 'ok' | 'failed' | 'skipped';
  detail: string;
  duration_ms: number;
}

export interface SftpCheckAnswer {
  ok: boolean;
  steps: Record<SftpCheckStep, SftpStepResult>;
  /** `<step>: <detail>` of the first step that failed; only when ok is false. */
  problem?: string;
  host_key: {
    /** What the server presented; null when the check did not get that far. */
    presented: string | null;
    pinned: string;
    matches: boolean;
  };
}

export interface SftpCheckTarget extends SftpEndpoint {
  remote_directory: string;
  /** The poller's processed directory when it moves taken files; made when missing. */
  processed_directory?: string;
}

export async function checkSftpConnection(
  target: SftpCheckTarget,
  secrets: SftpSecrets,
): Promise<SftpCheckAnswer> {
  const steps = Object.fromEntries(
    sftpCheckSteps.map((s) => [s, { status: 'skipped', detail: 'Not run', duration_ms: 0 }]),
  ) as Record<SftpCheckStep, SftpStepResult>;
  const answer = (ok: boolean, presented: string | null, problem?: string): SftpCheckAnswer => ({
    ok,
    steps,
    ...(problem ? { problem } : {}),
    host_key: {
      presented,
      pinned: target.host_key_fingerprint,
      matches: presented === target.host_key_fingerprint,
    },
  });
  let started = performance.now();
  const took = () => {
    const now = performance.now();
    const ms = Math.round(now - started);
    started = now;
    return ms;
  };
  let session: SftpSession;
  try {
    session = await openSession(target, secrets);
  } catch (error) {
    if (!(error instanceof SftpConnectError)) throw error;
    // The steps before the failed one passed; their details are the error's to tell.
    const failedAt = error.step === 'sftp' ? 'list' : error.step;
    for (const step of connectSteps) {
      if (step === error.step) break;
      if (step !== 'sftp')
        steps[step as SftpCheckStep] = {
          status: 'ok',
          detail: passedDetail(step, target, error),
          duration_ms: 0,
        };
    }
    steps[failedAt as SftpCheckStep] = { status: 'failed', detail: error.message, duration_ms: took() };
    return answer(false, error.presented ?? null, `${failedAt}: ${error.message}`);
  }
  const connectMs = took();
  for (const step of ['resolve', 'connect', 'host_key', 'authenticate'] as const) {
    steps[step] = {
      status: 'ok',
      detail: session.details[step] ?? '',
      duration_ms: step === 'authenticate' ? connectMs : 0,
    };
  }
  const remote = new Remote(session.sftp, target.timeout_seconds * 1000);
  try {
    for (const [step, run] of [
      ['list', () => list(remote, target)],
      ['write', () => writeProbe(remote, target.remote_directory)],
    ] as const) {
      try {
        steps[step] = { status: 'ok', detail: await run(), duration_ms: took() };
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        steps[step] = { status: 'failed', detail, duration_ms: took() };
        return answer(false, session.fingerprint, `${step}: ${detail}`);
      }
    }
  } finally {
    session.close();
  }
  return answer(true, session.fingerprint);
}

function passedDetail(step: string, target: SftpCheckTarget, error: SftpConnectError): string {
  if (step === 'resolve') return `${target.host} resolves`;
  if (step === 'connect') return `Connected to ${target.host} port ${target.port}`;
  if (step === 'host_key') return `${error.presented ?? ''} as pinned`;
  return 'passed';
}

async function list(remote: Remote, target: SftpCheckTarget): Promise<string> {
  const entries = await remote.list(target.remote_directory);
  const files = entries.filter((e) => e.attrs.isFile()).length;
  let detail = `${target.remote_directory} lists ${files} file(s)`;
  if (target.processed_directory) {
    await remote.makeDirectory(target.processed_directory);
    detail += `; ${target.processed_directory} is a directory`;
  }
  return detail;
}

/** Writes and removes a small hidden file, as a delivery's temporary file is written. */
async function writeProbe(remote: Remote, dir: string): Promise<string> {
  const probe = path.posix.join(dir, `.pier-check-${randomBytes(6).toString('hex')}.part`);
  const bytes = Buffer.from('pier connection check\n');
  try {
    await upload(remote, Readable.from([bytes]), probe);
  } finally {
    await remote.unlinkIfAny(probe).catch(() => {});
  }
  return `Wrote and removed ${bytes.length} bytes in ${dir}`;
}
