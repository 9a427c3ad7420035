/**
 * The outbound HTTP(S) proxy of an instance (docs/decisions/outbound-proxy.md): its own
 * `proxy_url`, else HTTPS_PROXY / HTTP_PROXY of the environment, never for a host NO_PROXY
 * names. The tunnel itself is the proxy-agents library's (https-proxy-agent for CONNECT,
 * http-proxy-agent for plain HTTP, undici's ProxyAgent for fetch), not a client of our own.
 */
import type http from 'node:http';
import type tls from 'node:tls';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { z } from 'zod';
import { password, userName } from './fields.js';

export const proxyFields = {
  proxy_url: z
    .string()
    .max(2048)
    .regex(
      /^$|^none$|^https?:\/\/[^/@\s]+\/?$/,
      'Must be empty, none, or http://host:port (the user name and password are settings of their own)',
    )
    .describe(
      'HTTP proxy for this instance’s connections, http://host:port; empty: HTTPS_PROXY or HTTP_PROXY of the environment; none: always direct. NO_PROXY is respected either way',
    ),
  proxy_username: userName.describe('User for the proxy (Basic); empty for none'),
};
export const proxyDefaults = { proxy_url: '', proxy_username: '' };
export const proxySecrets = { proxy_password: password.describe('Write-only: password for the proxy') };

export type ProxySettings = z.output<z.ZodObject<typeof proxyFields>>;

export interface ProxyChoice {
  /** With the credentials, for the agent only. */
  url: URL;
  /** Without credentials: what a check or a log line may show. */
  shown: string;
  /** Where it came from: the instance's setting or an environment variable. */
  source: 'proxy_url' | 'HTTPS_PROXY' | 'HTTP_PROXY';
}

function envValue(env: NodeJS.ProcessEnv, name: string): string {
  return env[name] ?? env[name.toLowerCase()] ?? '';
}

/**
 * NO_PROXY as curl reads it: `*` for every host, else names and domains separated by commas
 * or spaces, each matching the host and its subdomains (a leading dot is ignored), with an
 * optional `:port`.
 */
export function bypassesProxy(target: URL, noProxy: string): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const raw of noProxy.split(/[\s,]+/).filter(Boolean)) {
    if (raw === '*') return true;
    const [name, wantedPort] = raw
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .split(/:(?=\d+$)/) as [string, string?];
    if (wantedPort && wantedPort !== port) continue;
    const domain = name.replace(/^\*?\./, '');
    if (host === domain || host.endsWith(`.${domain}`)) return true;
  }
  return false;
}

/** The proxy a request to `target` goes through, or undefined for a direct connection. */
export function proxyFor(
  target: URL,
  settings: ProxySettings,
  proxyPassword: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): ProxyChoice | undefined {
  if (settings.proxy_url === 'none') return undefined;
  if (bypassesProxy(target, envValue(env, 'NO_PROXY'))) return undefined;
  let source: ProxyChoice['source'] = 'proxy_url';
  let text = settings.proxy_url;
  if (text === '') {
    source = target.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
    text = envValue(env, source);
    if (text === '' && source === 'HTTPS_PROXY') {
      // curl's habit, which operators expect: HTTP_PROXY serves https too when it is alone.
      source = 'HTTP_PROXY';
      text = envValue(env, source);
    }
  }
  if (text === '') return undefined;
  const url = new URL(/^[a-z]+:\/\//i.test(text) ? text : `http://${text}`);
  if (source === 'proxy_url' && settings.proxy_username !== '') {
    url.username = encodeURIComponent(settings.proxy_username);
    url.password = encodeURIComponent(proxyPassword ?? '');
  }
  return { url, shown: `${url.protocol}//${url.host}`, source };
}

/**
 * An agent reaching `target` through the proxy: CONNECT for https (the TLS options are the
 * target's, applied inside the tunnel), an absolute-URI request for http.
 */
export function proxyAgent(
  target: URL,
  proxy: ProxyChoice,
  options: http.AgentOptions,
  targetTls: tls.ConnectionOptions = {},
): http.Agent {
  return target.protocol === 'https:'
    ? new TunnelAgent(proxy.url, options, targetTls)
    : new HttpProxyAgent(proxy.url, options);
}

/**
 * https-proxy-agent takes the target's TLS options from each request; the senders keep them
 * on the agent (one per TLS set-up), so they are added to every connection here.
 */
type AgentConnectOpts = Parameters<HttpsProxyAgent<string>['connect']>[1];

class TunnelAgent extends HttpsProxyAgent<string> {
  constructor(
    proxy: URL,
    options: http.AgentOptions,
    private readonly targetTls: tls.ConnectionOptions,
  ) {
    super(proxy.href, options);
  }

  override connect(request: http.ClientRequest, options: AgentConnectOpts) {
    return super.connect(request, { ...options, ...this.targetTls } as AgentConnectOpts);
  }
}

/** The proxy as a message names it: host:port (the default port written out), never credentials. */
export function proxyAddress(proxy: ProxyChoice): string {
  const port = proxy.url.port || (proxy.url.protocol === 'https:' ? '443' : '80');
  return `${proxy.url.hostname}:${port}`;
}

/** `the proxy proxy.example:3128 (the instance's proxy_url)`: which proxy, and where it was set. */
export function proxyNamed(proxy: ProxyChoice): string {
  return `the proxy ${proxyAddress(proxy)} (${proxy.source === 'proxy_url' ? "the instance's proxy_url" : proxy.source})`;
}

/**
 * Errors of connecting that, through a proxy, are the proxy's: the connection opened, and the
 * name looked up, are the proxy's (the partner's name is the proxy's to resolve).
 */
const connectCodes = new Set([
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * What went wrong on a request through a proxy, naming the proxy rather than only the partner:
 * `ECONNREFUSED: the proxy 127.0.0.1:3128 (the instance's proxy_url) could not be reached: …`,
 * else `ECONNRESET: through the proxy …, to partner.example:443: …`. Built from the proxy's shown
 * address and the error's own words, so its credentials are never in it.
 */
export function proxyFailure(proxy: ProxyChoice, target: URL, error: NodeJS.ErrnoException): string {
  const code = error.code ?? 'Error';
  return error.syscall === 'connect' || connectCodes.has(code)
    ? `${code}: ${proxyNamed(proxy)} could not be reached: ${error.message}`
    : `${code}: through ${proxyNamed(proxy)}, to ${target.host}: ${error.message}`;
}

/**
 * A refusal that came back through a proxy. A 407 is the proxy's (only a proxy asks for its
 * credentials), and so is any answer to a CONNECT that was not 200 (`tunnelRefused`: the
 * partner was never reached); any other answer may be the partner's or the proxy's (tinyproxy
 * answers a wrong password with 401), so it is told as what came back through the proxy.
 */
export function proxiedAnswer(
  proxy: ProxyChoice,
  target: URL,
  answer: { status: number; statusText: string; tunnelRefused?: boolean },
): string {
  const line = `HTTP ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}`;
  if (answer.status !== 407 && !answer.tunnelRefused)
    return `The answer through ${proxyNamed(proxy)} to the request for ${target.host} was ${line}`;
  const asked = answer.tunnelRefused ? `a tunnel to ${target.host}` : `the request for ${target.host}`;
  const hint =
    answer.status !== 407 && answer.status !== 401
      ? ''
      : proxy.source === 'proxy_url'
        ? ': check proxy_username and proxy_password'
        : `: check the credentials in ${proxy.source}`;
  return `${capitalised(proxyNamed(proxy))} answered ${line} to ${asked}${hint}`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
