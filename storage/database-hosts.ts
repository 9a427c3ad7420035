/**
 * A DATABASE_URL that names several hosts, as libpq reads it:
 * `postgresql://user@h1:5432,h2:5432/pier?target_session_attrs=read-write`. The pg driver takes
 * one host only, so the URL is split here into one single-host URL per node; which of them is
 * the primary is found by primary-locator.ts.
 */

export interface DatabaseHost {
  host: string;
  port: number;
  /** The URL the pg driver takes for this node: the given URL with this one host. */
  url: string;
}

export interface DatabaseHosts {
  hosts: DatabaseHost[];
  /** Whether only a node that takes writes will do (libpq's `target_session_attrs`). */
  readWrite: boolean;
}

const urlShape = /^(postgres(?:ql)?:)\/\/(?:([^@/?#]*)@)?([^/?#]*)([^?#]*)(?:\?([^#]*))?$/;

/**
 * The nodes a URL names, in its order. A URL with one host is given back as it is. Throws when
 * the URL is not a PostgreSQL URL or a host's port is not a number.
 */
export function databaseHosts(url: string): DatabaseHosts {
  const match = urlShape.exec(url);
  if (!match) return { hosts: [single(url)], readWrite: false };
  const [, scheme, userInfo, hostList = '', path = '', query = ''] = match;
  const names = hostList.split(',');
  if (names.length < 2) return { hosts: [single(url)], readWrite: false };
  const params = new URLSearchParams(query);
  const attrs = params.get('target_session_attrs');
  params.delete('target_session_attrs');
  const rest = params.toString();
  const hosts = names.map((name) => {
    const { host, port } = hostAndPort(name);
    const authority = `${userInfo === undefined ? '' : `${userInfo}@`}${host.includes(':') ? `[${host}]` : host}:${port}`;
    return { host, port, url: `${scheme}//${authority}${path}${rest ? `?${rest}` : ''}` };
  });
  // libpq's default is `any`; a failover URL without the parameter still wants the primary,
  // since pier writes on every connection.
  return { hosts, readWrite: attrs !== 'any' };
}

function single(url: string): DatabaseHost {
  try {
    const parsed = new URL(url);
    return { host: parsed.hostname, port: Number(parsed.port || 5432), url };
  } catch {
    return { host: '', port: 5432, url };
  }
}

function hostAndPort(text: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d*))?$/.exec(text);
  const [host, port] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : text.includes(':')
      ? [text.slice(0, text.lastIndexOf(':')), text.slice(text.lastIndexOf(':') + 1)]
      : [text, undefined];
  if (!host) throw new Error('DATABASE_URL names an empty host in its list of hosts');
  if (port !== undefined && port !== '' && !/^\d{1,5}$/.test(port))
    throw new Error(`DATABASE_URL names the host ${host} with a port that is not a number`);
  return { host: decodeURIComponent(host), port: port ? Number(port) : 5432 };
}
