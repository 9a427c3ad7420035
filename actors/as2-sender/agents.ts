/**
 * The sender's kept-alive connections: one agent for plain HTTP, and one per TLS set-up for
 * HTTPS (the certificates a partner's profile pins, whether it verifies, the client
 * certificate), so consecutive messages to a partner reuse a TLS session instead of paying a
 * handshake each, and partners with different TLS settings never share a connection.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { As2OutboundContext } from '../../protocol/as2-protocol.js';
import { proxyAgent, proxyFor, type ProxyChoice, type ProxySettings } from '../shared/proxy.js';
import { limits } from '../../limits/limits.js';

/** TLS towards a partner: the system trust store plus the certificates its profile pins. */
export function tlsOptions(
  context: As2OutboundContext,
): tls.SecureContextOptions & { rejectUnauthorized: boolean } {
  return {
    ca: context.tls_trusted.length > 0 ? [...tls.rootCertificates, ...context.tls_trusted] : undefined,
    rejectUnauthorized: context.tls_verify,
    ...(context.tls_client?.private_key_pem
      ? { cert: context.tls_client.certificate_pem, key: context.tls_client.private_key_pem }
      : {}),
  };
}

export class PartnerAgents {
  readonly #http: http.Agent;
  readonly #https = new Map<string, http.Agent>();
  /** Contexts are kept a few seconds by the sender, so a fingerprint is worked out once for each. */
  readonly #fingerprints = new WeakMap<As2OutboundContext, string>();

  constructor(
    private readonly maxSockets: number,
    private readonly proxy: { settings: ProxySettings; password?: string | undefined } = {
      settings: { proxy_url: 'none', proxy_username: '' },
    },
  ) {
    this.#http = new http.Agent({ keepAlive: true, maxSockets });
  }

  /** The proxy a request to `url` goes through, or undefined when it goes direct. */
  proxyFor(url: URL): ProxyChoice | undefined {
    return proxyFor(url, this.proxy.settings, this.proxy.password);
  }

  for(url: URL, context: As2OutboundContext): http.Agent {
    const proxy = this.proxyFor(url);
    if (!proxy && url.protocol !== 'https:') return this.#http;
    const tlsKey = url.protocol === 'https:' ? this.#fingerprintOf(context) : 'http';
    // A proxied partner and a direct one never share a connection, nor two proxies.
    const key = proxy ? `${proxy.url.href}\n${tlsKey}` : tlsKey;
    let agent = this.#https.get(key);
    if (agent) {
      // Most recently used last: a Map keeps insertion order.
      this.#https.delete(key);
    } else {
      agent = proxy
        ? proxyAgent(url, proxy, { keepAlive: true, maxSockets: this.maxSockets }, tlsOptions(context))
        : this.#tlsAgent(context);
      if (this.#https.size >= limits.maxTlsAgents) {
        const [oldest, old] = this.#https.entries().next().value!;
        this.#https.delete(oldest);
        old.destroy();
      }
    }
    this.#https.set(key, agent);
    return agent;
  }

  destroy(): void {
    this.#http.destroy();
    for (const agent of this.#https.values()) agent.destroy();
    this.#https.clear();
  }

  /**
   * The TLS options as one secure context, made once per agent: the trust store is then not
   * rebuilt, nor part of each request's pool key, for every message.
   */
  #tlsAgent(context: As2OutboundContext): https.Agent {
    const { rejectUnauthorized, ...secure } = tlsOptions(context);
    return new https.Agent({
      keepAlive: true,
      maxSockets: this.maxSockets,
      secureContext: tls.createSecureContext(secure),
      rejectUnauthorized,
    });
  }

  #fingerprintOf(context: As2OutboundContext): string {
    let found = this.#fingerprints.get(context);
    if (found === undefined) {
      const hash = createHash('sha256');
      hash.update(context.tls_verify ? 'verify\n' : 'no-verify\n');
      for (const pem of context.tls_trusted) hash.update(`trust\n${pem}\n`);
      if (context.tls_client?.private_key_pem) {
        hash.update(`client\n${context.tls_client.certificate_pem}\n${context.tls_client.private_key_pem}\n`);
      }
      found = hash.digest('hex');
      this.#fingerprints.set(context, found);
    }
    return found;
  }
}
