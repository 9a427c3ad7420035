/** Small helpers the wizard's forms share: a field's text, values to show again, list reads. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FormFields } from '../../form.js';
import type { UiRequestContext } from '../../layout.js';
import { callApi, type UiDeps } from '../../components/request-context.js';
import type { StoredCertificate } from './state.js';

export function textOf(fields: FormFields, name: string): string {
  const v = fields[name];
  return (Array.isArray(v) ? v[v.length - 1] : v) ?? '';
}

/** The values a refused form is drawn with: what was sent, never a password or the CSRF token. */
export function keptValues(
  fields: FormFields,
  secret: readonly string[] = ['password'],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (k === '_csrf' || secret.includes(k)) continue;
    // Rows of a field group (interchange ids) keep every row; any other repeated name its last.
    out[k] = Array.isArray(v) && !k.startsWith('interchange_ids.') ? v[v.length - 1] : v;
  }
  return out;
}

/** The stored certificates, for pickers; empty when the list cannot be read. */
export async function storedCertificates(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<StoredCertificate[]> {
  const listed = await callApi(deps, ui, request, reply, 'GET', '/certificates', { query: { limit: '500' } });
  return listed.ok ? listed.data.certificates : [];
}
