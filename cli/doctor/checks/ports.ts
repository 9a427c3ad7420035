/**
 * Every enabled instance's port free or held by pier. A port is tried by binding it where the
 * instance would; one that is taken is asked who holds it: pier's receivers answer every
 * request with `Server: pier…` (docs/api/settings.md), any other program does not.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import { enabledListeners, type ListeningInstance } from '../../../storage/queries/doctor.js';
import { failed, passed, type CheckResult } from '../checklist.js';
import { limits } from '../../../limits/limits.js';

const id = 'ports';
const title = 'Ports of the enabled instances free or held by pier';

type PortState = { state: 'free' } | { state: 'pier' } | { state: 'taken' | 'refused'; why: string };

function tryBind(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(undefined)));
  });
}

/** The Server header of whatever answers on the port, or undefined when nothing speaks HTTP(S) there. */
function serverHeader(instance: ListeningInstance): Promise<string | undefined> {
  const host = ['0.0.0.0', '::', ''].includes(instance.host) ? '127.0.0.1' : instance.host;
  const client = instance.tls ? https : http;
  return new Promise((resolve) => {
    const request = client.get(
      {
        host,
        port: instance.port,
        path: instance.path,
        timeout: limits.portAskTimeoutMs,
        rejectUnauthorized: false,
      },
      (response) => {
        response.resume();
        resolve([response.headers.server ?? []].flat()[0]);
      },
    );
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
}

async function stateOf(instance: ListeningInstance): Promise<PortState> {
  const error = await tryBind(instance.host, instance.port);
  if (!error) return { state: 'free' };
  if (error.code === 'EADDRINUSE') {
    const server = await serverHeader(instance);
    if (server?.startsWith('pier')) return { state: 'pier' };
    return {
      state: 'taken',
      why: `is used by another program${server ? ` (it answers as ${server})` : ''}`,
    };
  }
  if (error.code === 'EACCES')
    return { state: 'refused', why: 'needs privileges this user lacks (below 1024)' };
  if (error.code === 'EADDRNOTAVAIL')
    return { state: 'refused', why: `cannot be bound: ${instance.host} is not an address of this machine` };
  return { state: 'refused', why: `cannot be bound (${error.code ?? error.message})` };
}

export async function checkPorts(em: EntityManager): Promise<CheckResult> {
  const instances = await enabledListeners(em);
  if (instances.length === 0) return passed(id, title, 'no enabled instance listens on a port of its own');
  const states = await Promise.all(instances.map(async (i) => ({ i, s: await stateOf(i) })));
  const name = (i: ListeningInstance) => `${i.type}/${i.name} (${i.host}:${i.port})`;
  const problems = states.flatMap(({ i, s }) =>
    s.state === 'taken' || s.state === 'refused' ? [`${name(i)}: port ${i.port} ${s.why}`] : [],
  );
  const summary = states.map(({ i, s }) => `${name(i)} ${s.state === 'pier' ? 'held by pier' : s.state}`);
  if (problems.length === 0) return passed(id, title, summary.join(', '));
  return failed(
    id,
    title,
    `${problems.length} of ${instances.length} ports cannot be used by pier`,
    'Stop the program holding the port (`ss -ltnp "sport = :PORT"` names it), or give the instance another ' +
      'host or port in its configuration (web UI: Plugin instances)',
    problems,
  );
}
