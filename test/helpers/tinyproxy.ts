/**
 * A real HTTP proxy for a test: Debian's tinyproxy in the foreground on a free loopback port,
 * optionally asking for Basic credentials; its log says which connections went through it.
 * Undefined when tinyproxy is not installed (the test says so and skips).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { freePort } from './free-port.js';
import { waitFor } from './wait.js';

export interface Tinyproxy {
  url: string;
  port: number;
  /** The proxy's log so far (its Connect-level lines name each request it passed on). */
  log(): Promise<string>;
}

export function tinyproxyPath(): string | undefined {
  for (const candidate of ['/usr/bin/tinyproxy', '/usr/sbin/tinyproxy']) {
    if (spawnSync(candidate, ['-v']).status === 0) return candidate;
  }
  return undefined;
}

export async function startTinyproxy(
  t: Test,
  credentials?: { user: string; password: string },
): Promise<Tinyproxy | undefined> {
  const binary = tinyproxyPath();
  if (!binary) return undefined;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-tinyproxy-'));
  const port = await freePort();
  const logFile = path.join(dir, 'tinyproxy.log');
  // No ConnectPort line: CONNECT is allowed to any port (the partners listen on free ones).
  const config = [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Timeout 30',
    `LogFile "${logFile}"`,
    'LogLevel Connect',
    'MaxClients 20',
    'Allow 127.0.0.1',
    ...(process.getuid?.() === 0 ? ['User nobody', 'Group nogroup'] : []),
    ...(credentials ? [`BasicAuth ${credentials.user} ${credentials.password}`] : []),
  ].join('\n');
  await writeFile(path.join(dir, 'tinyproxy.conf'), `${config}\n`);
  // Run as root, tinyproxy becomes nobody, who must still reach its log.
  await chmod(dir, 0o755);
  await writeFile(logFile, '');
  await chmod(logFile, 0o666);
  const child = spawn(binary, ['-d', '-c', path.join(dir, 'tinyproxy.conf')], { stdio: 'ignore' });
  t.teardown(async () => {
    child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  });
  await waitFor(
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), resolve(true)));
        socket.once('error', () => resolve(undefined));
      }),
    `tinyproxy listening on ${port}`,
    10_000,
  );
  return { url: `http://127.0.0.1:${port}`, port, log: () => readFile(logFile, 'utf8') };
}
