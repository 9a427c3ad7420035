/**
 * podman for the container tests: whether it can run here, and the settings it runs with.
 *
 * On these machines podman's defaults fail in two ways the tests set right through a
 * containers.conf of their own (CONTAINERS_CONF, which podman-compose's podman reads too):
 * a container's open-files and process limits above what the machine allows fail with "error
 * setting rlimit … operation not permitted", so they are set at or below the machine's; and crun
 * refuses cgroups in hybrid mode ("cgroups in hybrid mode not supported"), which runc runs, so runc
 * is the runtime where it is installed.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';

/** The machine's hard limit of a resource named as /proc/self/limits names it, capped at `most`. */
function machineLimit(name: string, most: number): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(name));
  const hard = line?.slice(name.length).trim().split(/\s+/)[1];
  return hard === undefined || hard === 'unlimited' ? most : Math.min(Number(hard), most);
}

function writeContainersConf(): string {
  const nofile = machineLimit('Max open files', 65_536);
  // Above a few thousand, runc's limit for its own init fails here even below the machine's.
  const nproc = machineLimit('Max processes', 4_096);
  const lines = [
    '[containers]',
    `default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]`,
  ];
  if (existsSync('/usr/bin/runc') || existsSync('/usr/sbin/runc')) lines.push('[engine]', 'runtime = "runc"');
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'pier-podman-')), 'containers.conf');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The environment every podman and podman-compose the tests run gets. */
export const podmanEnv: NodeJS.ProcessEnv = { ...process.env, CONTAINERS_CONF: writeContainersConf() };

/**
 * Why the container tests cannot run here, or undefined when they can: podman and mmdebstrap
 * installed and podman answering. Under CI (CI=true, as .ci/run runs) the caller fails instead of
 * skipping, since .ci/run installs them.
 */
export function podmanMissing(): string | undefined {
  for (const tool of ['podman', 'mmdebstrap']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  }
  const info = spawnSync('podman', ['info'], { env: podmanEnv, encoding: 'utf8' });
  if (info.status !== 0) return `podman cannot run here: ${info.stderr.trim().split('\n').pop()}`;
  return undefined;
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ToolOptions {
  cwd?: string;
  timeoutMs?: number;
  /** The environment, podmanEnv's settings added; podmanEnv unless given. */
  env?: NodeJS.ProcessEnv;
}

/** Runs a program (podman, podman-compose) with the tests' settings; never throws on its exit code. */
export function runTool(program: string, args: string[], options: ToolOptions = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      program,
      args,
      {
        env: options.env ? { ...options.env, CONTAINERS_CONF: podmanEnv.CONTAINERS_CONF } : podmanEnv,
        cwd: options.cwd,
        maxBuffer: 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? 600_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

export const podman = (args: string[], options?: ToolOptions) => runTool('podman', args, options);

/** podman that must succeed: its standard output, trimmed. */
export async function mustPodman(args: string[], options?: ToolOptions): Promise<string> {
  const ran = await podman(args, options);
  if (ran.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${ran.code}: ${ran.stderr.trim()}`);
  return ran.stdout.trim();
}

/**
 * A container test, or, where podman cannot run (and not under CI, whose .ci/run installs it),
 * one passing line that says why it did not run.
 */
export function containerTest(
  t: Test,
  name: string,
  timeoutMs: number,
  body: (t: Test) => Promise<void>,
): void {
  const missing = podmanMissing();
  if (missing && !process.env.CI) {
    t.comment(`skipped: ${missing}`);
    t.pass(`skipped: ${missing}`);
    return;
  }
  // The file's own timeout (the runner's five minutes) must not end it before the test's.
  t.setTimeout(timeoutMs + 60_000);
  t.test(name, { timeout: timeoutMs }, async (t) => {
    if (missing) t.fail(`podman must run under CI: ${missing}`);
    else await body(t);
  });
}

/** A name for a container or volume that no other test or run uses. */
export function uniqueName(what: string): string {
  return `pier-test-${what}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
