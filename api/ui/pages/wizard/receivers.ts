/** The AS2 receivers' settings the wizard needs: their ports, and the URL a partner posts to. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UiRequestContext } from '../../layout.js';
import { callApi, type UiDeps } from '../../components/request-context.js';
import type { Instance } from './readiness.js';
import type { ReceiverConfig } from './state.js';

export async function receiverConfigs(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  instances: readonly Instance[],
): Promise<Map<string, ReceiverConfig>> {
  const out = new Map<string, ReceiverConfig>();
  for (const i of instances.filter((x) => x.type === 'as2-receiver')) {
    const got = await callApi(deps, ui, request, reply, 'GET', '/plugins/configs/:type/:name', {
      params: { type: i.type, name: i.name },
    });
    if (got.ok && got.data.type === 'as2-receiver') out.set(i.name, got.data);
  }
  return out;
}

/**
 * The address to give the partner: the receiver's `public_url` when set, otherwise this
 * server's public host with the receiver's own port and path (over HTTPS when it has a
 * certificate), as the receiver derives its receipt address.
 */
export function partnerFacingUrl(config: ReceiverConfig, publicUrl: string): string {
  if (config.public_url !== '') return config.public_url;
  const host = new URL(publicUrl).hostname;
  const scheme = config.tls_certificate_id ? 'https' : 'http';
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.port}${config.path}`;
}
