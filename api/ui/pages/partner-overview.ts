/**
 * One partner's page after set-up: its standing at the top, then (below the partner's own
 * fields and AS2 profile) the certificates its profile names, the routes that name it and the
 * instances those routes run through, each with the link where it is changed. Everything is
 * read through the API's own routes as the signed-in user.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, type Html } from '../html.js';
import { uiPrefix, type UiRequestContext } from '../layout.js';
import { section } from '../components/index.js';
import { badge, facts, table, when } from '../components/data.js';
import { callApi, type UiDeps } from '../components/request-context.js';
import { certificateCell, lastMessageCell, reachabilityCell } from './partner-status-cells.js';

type Row = Record<string, unknown>;
type Call = <T>(
  path: string,
  options?: { params?: Record<string, string>; query?: Record<string, string> },
) => Promise<T | undefined>;

function caller(deps: UiDeps, ui: UiRequestContext, request: FastifyRequest, reply: FastifyReply): Call {
  return async <T>(
    path: string,
    options: { params?: Record<string, string>; query?: Record<string, string> } = {},
  ) => {
    if (!deps.api.has('GET', path)) return undefined;
    const answer = await callApi<T>(deps, ui, request, reply, 'GET', path, options);
    return answer.ok ? answer.data : undefined;
  };
}

/** The partner's standing and the way round the page: drawn above the partner's fields. */
export async function partnerLead(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  partner: Row,
): Promise<Html> {
  const call = caller(deps, ui, request, reply);
  const listed = await call<{ partners: Row[] }>('/partner-status', {
    query: { q: String(partner.name), limit: '500' },
  });
  const standing = listed?.partners.find((p) => p.id === partner.id);
  const glance = standing
    ? facts([
        ['Last received', lastMessageCell(standing.last_inbound as never)],
        ['Last sent', lastMessageCell(standing.last_outbound as never)],
        ['Reachability', reachabilityCell(standing.reachability as never)],
        [
          'Certificate expiry',
          certificateCell(standing.certificate as never, Number(standing.certificate_count)),
        ],
      ])
    : html`<p>Not known.</p>`;
  return html`<nav class="on-this-page" aria-label="On this page">
      <a href="#partner-details">Details</a> · <a href="#profile-heading">AS2 profile</a> ·
      <a href="#partner-certificates-heading">Certificates</a> ·
      <a href="#partner-routes-heading">Routes</a> · <a href="#partner-instances-heading">Instances</a>
    </nav>
    ${section('partner-standing', 'Standing', glance)}
    <h2 id="partner-details">Details</h2>`;
}

/** Which certificate fields of the remote profile are the partner's, in words. */
const certificateUses: [field: string, use: string][] = [
  ['partner_certificate_id', 'Encrypting to the partner'],
  ['signature_certificate_ids', 'Verifying the partner’s signatures'],
  ['tls_trusted_certificate_ids', 'Trusting the partner’s HTTPS server'],
  ['tls_client_certificate_id', 'Our TLS client certificate'],
];

async function certificatesSection(call: Call, partner: Row): Promise<Html> {
  const profileHref = `${uiPrefix}/partners/${String(partner.id)}/profile`;
  const profile = await call<Row>('/as2/remote-profiles/:id', { params: { id: String(partner.id) } });
  if (!profile) {
    return section(
      'partner-certificates',
      'Certificates',
      html`<p>No AS2 profile, so no certificates. <a href="${profileHref}">Add an AS2 profile</a></p>`,
    );
  }
  const uses: { id: number; use: string }[] = [];
  for (const [field, use] of certificateUses) {
    const value = profile[field];
    const ids = Array.isArray(value) ? (value as number[]) : typeof value === 'number' ? [value] : [];
    for (const id of ids) uses.push({ id, use });
  }
  const rows: Row[] = [];
  for (const u of uses) {
    const c = await call<Row>('/certificates/:id', { params: { id: String(u.id) } });
    rows.push({ ...(c ?? { id: u.id }), use: u.use });
  }
  const now = Date.now();
  const expiry = (r: Row) => {
    if (!r.not_after) return '—';
    const left = new Date(String(r.not_after)).getTime() - now;
    const flag =
      left <= 0
        ? badge('Expired', 'expired')
        : left <= 30 * 86_400_000
          ? badge(`Expires in ${Math.floor(left / 86_400_000)} days`, 'expiring')
          : badge('Valid', 'valid');
    return html`${flag} ${when(String(r.not_after))}`;
  };
  return section(
    'partner-certificates',
    'Certificates',
    html`${table(
        'Certificates of the partner',
        [
          { label: 'Used for', cell: (r: Row) => String(r.use) },
          {
            label: 'Certificate',
            cell: (r: Row) =>
              html`<a href="${uiPrefix}/certificates/${String(r.id)}"
                >${String(r.common_name ?? `certificate ${String(r.id)}`)}</a
              >`,
          },
          { label: 'Expiry', cell: expiry },
        ],
        rows,
        'The AS2 profile names no certificate.',
      )}
      <p>
        <a href="${profileHref}">Change which certificates the profile uses</a> ·
        <a href="${uiPrefix}/certificates">Import or generate a certificate</a>
      </p>`,
  );
}

/** Routes that name the partner on either side. */
async function partnerRoutes(call: Call, name: string): Promise<Row[]> {
  const listed = await call<{ routes: Row[] }>('/routes', { query: { limit: '500' } });
  return (listed?.routes ?? []).filter((r) => r.from === name || r.to === name);
}

function routesSection(routes: Row[]): Html {
  return section(
    'partner-routes',
    'Routes',
    html`${table(
        'Routes of the partner',
        [
          {
            label: 'Route',
            cell: (r: Row) => html`<a href="${uiPrefix}/routes/${String(r.id)}">${String(r.name)}</a>`,
          },
          { label: 'From', cell: (r: Row) => String(r.from) },
          { label: 'To', cell: (r: Row) => String(r.to) },
          { label: 'Source', cell: (r: Row) => String(r.source_plugin) },
          { label: 'Document type', cell: (r: Row) => String(r.document_type ?? '*') },
          { label: 'Target', cell: (r: Row) => String(r.target_plugin) },
        ],
        routes,
        'No route names this partner.',
      )}
      <p><a href="${uiPrefix}/routes">Add a route</a></p>`,
  );
}

async function instancesSection(call: Call, routes: Row[]): Promise<Html> {
  const names = new Set(routes.flatMap((r) => [String(r.source_plugin), String(r.target_plugin)]));
  const services = (await call<Row[]>('/services')) ?? [];
  const used = services.filter((s) => names.has(String(s.name)) && s.controllable !== false);
  return section(
    'partner-instances',
    'Instances',
    html`${table(
        'Instances the partner’s routes run through',
        [
          {
            label: 'Instance',
            cell: (s: Row) =>
              html`<a href="${uiPrefix}/instances/${String(s.type)}/${String(s.name)}">${String(s.name)}</a>`,
          },
          { label: 'Type', cell: (s: Row) => String(s.type) },
          {
            label: 'Status',
            cell: (s: Row) =>
              html`${badge(String(s.status))}${s.error ? html` <small>${String(s.error)}</small>` : ''}`,
          },
        ],
        used,
        'No instance yet: the partner’s routes name none.',
      )}
      <p><a href="${uiPrefix}/instances">All instances</a></p>`,
  );
}

/** The partner's certificates, routes and instances: drawn below its AS2 profile. */
export async function partnerSections(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  partner: Row,
): Promise<Html> {
  const call = caller(deps, ui, request, reply);
  const routes = await partnerRoutes(call, String(partner.name));
  return html`${await certificatesSection(call, partner)} ${routesSection(routes)}
  ${await instancesSection(call, routes)}`;
}
