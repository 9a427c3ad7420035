/**
 * Checking that a partner's AS2 endpoint can be reached, step by step, without sending an
 * AS2 message: the certificates of the profile are current, the host name resolves, a TCP
 * connection opens, TLS completes with the trust the sender uses (https only), and the
 * endpoint answers an HTTP GET. A step runs only when the ones before it passed; the first
 * failure is the problem. Nothing here reports keys, passwords or header values.
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { As2OutboundContext } from '../../protocol/as2-protocol.js';
import {
  checkSteps,
  type CheckAnswer,
  type CheckConnectionRequest,
  type CheckStep,
  type StepResult,
} from '../../protocol/host-protocol.js';
import { proxyAgent, proxyFor, type ProxyChoice, type ProxySettings } from '../shared/proxy.js';
import { tlsOptions } from './agents.js';

/** What the sender adds to the core's question: its own timeout, User-Agent and proxy. */
interface CheckTarget extends Omit<CheckConnectionRequest, 'type'> {
  timeoutMs: number;
  proxy?: { settings: ProxySettings; password?: string | undefined };
}

type ProfileCertificate = CheckConnectionRequest['certificates'][number];

class StepFailed extends Error {}

/** HTTP answers that say the endpoint is wrong or refuses us; others (e.g. 405 to a GET) are fine. */
const refusingStatuses = new Set([401, 403, 404, 407]);

export async function checkConnection(target: CheckTarget): Promise<CheckAnswer> {
  const steps = Object.fromEntries(
    checkSteps.map((s) => [s, { status: 'skipped', detail: 'Not run', duration_ms: 0 }]),
  ) as Record<CheckStep, StepResult>;
  let url: URL | undefined;
  let address = '';
  let proxy: ProxyChoice | undefined;
  // With a proxy, the name resolved and the connection opened are the proxy's; TLS runs inside
  // its tunnel, so the http step, which goes through it, checks both.
  const run: Record<CheckStep, () => Promise<string>> = {
    certificates: async () => certificatesCurrent(target.certificates, target.now),
    proxy: async () => {
      try {
        url = new URL(target.endpoint);
      } catch {
        throw new StepFailed(`The endpoint ${target.endpoint} is not an address`);
      }
      proxy = target.proxy && proxyFor(url, target.proxy.settings, target.proxy.password);
      if (!proxy) return 'None: a direct connection';
      return `Through ${proxy.shown} (${proxy.source === 'proxy_url' ? "the instance's proxy_url" : proxy.source})`;
    },
    resolve: async () => {
      const host = (proxy?.url ?? url!).hostname.replace(/^\[|\]$/g, '');
      const found = await lookup(host, { all: true }).catch((error: NodeJS.ErrnoException) => {
        throw new StepFailed(`${host} does not resolve (${error.code ?? error.message})`);
      });
      address = found[0]!.address;
      return `${host} is ${found.map((a) => a.address).join(', ')}`;
    },
    connect: () => connectTo(address, portOf(proxy?.url ?? url!), target.timeoutMs),
    tls: () =>
      url!.protocol !== 'https:'
        ? Promise.resolve('Not used: the endpoint is plain HTTP')
        : proxy
          ? Promise.resolve("Inside the proxy's tunnel: checked by the http step")
          : handshake(address, url!.hostname, portOf(url!), target),
    http: () => httpAnswer(url!, target, proxy),
  };
  for (const step of checkSteps) {
    const started = performance.now();
    try {
      const detail = await run[step]();
      steps[step] = { status: 'ok', detail, duration_ms: Math.round(performance.now() - started) };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      steps[step] = { status: 'failed', detail, duration_ms: Math.round(performance.now() - started) };
      return { ok: false, steps, problem: `${step}: ${detail}` };
    }
  }
  return { ok: true, steps };
}

function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

function certificatesCurrent(certificates: ProfileCertificate[], now: Date): string {
  for (const c of certificates) {
    if (c.not_after <= now)
      throw new StepFailed(
        `${c.field}: certificate ${c.id} (${c.subject}) expired ${c.not_after.toISOString()}`,
      );
    if (c.not_before > now)
      throw new StepFailed(
        `${c.field}: certificate ${c.id} (${c.subject}) is valid only from ${c.not_before.toISOString()}`,
      );
  }
  return certificates.length === 0
    ? 'The profile refers to no certificates'
    : `${certificates.length} certificate(s) current`;
}

function connectTo(host: string, port: number, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port, timeout: timeoutMs });
    socket.once('connect', () => {
      socket.destroy();
      resolve(`Connected to ${host} port ${port}`);
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new StepFailed(`No connection to ${host} port ${port} within ${timeoutMs / 1000} s`));
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      reject(new StepFailed(`${host} port ${port}: ${error.code ?? error.message}`)),
    );
  });
}

function handshake(address: string, hostname: string, port: number, target: CheckTarget): Promise<string> {
  const options = tlsOptions(target.tls as As2OutboundContext);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: address,
      port,
      servername: net.isIP(hostname) ? undefined : hostname,
      timeout: target.timeoutMs,
      ...(options as tls.ConnectionOptions),
      // Verify the name against the endpoint's host, not the address connected to.
      checkServerIdentity: (_host, cert) => tls.checkServerIdentity(hostname, cert),
    });
    socket.once('secureConnect', () => {
      const peer = socket.getPeerCertificate();
      const detail = `${socket.getProtocol() ?? 'TLS'}, ${socket.getCipher().name}; server certificate ${
        peer.subject?.CN ?? 'without a common name'
      } valid until ${peer.valid_to ?? 'unknown'}${socket.authorized ? '' : ` (not verified: ${String(socket.authorizationError)})`}`;
      socket.destroy();
      resolve(detail);
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new StepFailed(`No TLS handshake within ${target.timeoutMs / 1000} s`));
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new StepFailed(`TLS failed: ${error.code ?? ''} ${error.message}`.trim() + trustHint(error.code)),
      ),
    );
  });
}

/** Codes of a server certificate no trusted authority vouches for (self-signed, private CA). */
const untrustedCodes = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

/** What fixes an untrusted partner certificate, so the operator need not search for it. */
function trustHint(code: string | undefined): string {
  if (!code || !untrustedCodes.has(code)) return '';
  return (
    ". The partner's HTTPS certificate is self-signed or from a private authority: store it " +
    "(POST /certificates) and add its id to the partner profile's tls_trusted_certificate_ids"
  );
}

function httpAnswer(url: URL, target: CheckTarget, proxy: ProxyChoice | undefined): Promise<string> {
  const secure = url.protocol === 'https:';
  const tlsSetUp = secure ? tlsOptions(target.tls as As2OutboundContext) : {};
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(url, {
      method: 'GET',
      headers: target.headers,
      timeout: target.timeoutMs,
      agent: proxy ? proxyAgent(url, proxy, {}, tlsSetUp) : false,
      ...tlsSetUp,
    });
    request.on('timeout', () =>
      request.destroy(new StepFailed(`No HTTP answer within ${target.timeoutMs / 1000} s`)),
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error instanceof StepFailed ? error : new StepFailed(`${error.code ?? ''} ${error.message}`.trim()),
      ),
    );
    request.on('response', (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      const line = `HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
      const server =
        proxy && status === 407
          ? ` from the proxy ${proxy.shown} (proxy_username and proxy_password)`
          : response.headers.server
            ? ` from ${response.headers.server}`
            : '';
      if (status >= 500 || refusingStatuses.has(status))
        reject(new StepFailed(`The endpoint answered ${line}${server}`));
      else resolve(`The endpoint answered ${line}${server}`);
    });
    request.end();
  });
}
