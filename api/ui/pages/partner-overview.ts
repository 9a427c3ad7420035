/**
 * One partner's page after set-up: its standing at the top, then (below the partner's own
 * fields and AS2 profile) the certificates its profile names, the routes that name it and the
 * instances those routes run through, each with the link where it is changed. Everything is
 * read through the API's own routes as the signed-in user.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html, type Html } from '../html.js';
import { uiPrefix, type UiRequestContext } from '../layout.js';
import { section, type AnswerOf, type ListRow } from '../components/index.js';
import { badge, facts, table, when, type Column } from '../components/data.js';
import { callApi, type UiDeps } from '../components/request-context.js';
import { certificateCell, lastMessageCell, reachabilityCell } from './partner-status-cells.js';
import type { DetailPart } from './crud.js';

/** What the page needs of the partner it is drawn for. */
export type PartnerRef = Pick<AnswerOf<'GET', '/partners/:id'>, 'id' | 'name'>;
type Route = ListRow<'/routes', 'routes'>;
/** A certificate the partner's profile names, with what it is used for (only its id when it cannot be read). */
type CertificateUse = Partial<AnswerOf<'GET', '/certificates/:id'>> & { id: number; use: string };

/** A section of the overview: a table of what the partner uses, then where it is changed. */
function overviewSection<R>(part: {
  id: string;
  heading: string;
  caption: string;
  columns: Column<R>[];
  rows: R[];
  empty: string;
  links: Html;
}): Html {
  return section(
    part.id,
    part.heading,
    html`${table(part.caption, part.columns, part.rows, part.empty)}
      <p>${part.links}</p>`,
  );
}

/** A GET route's answer as the signed-in user, or undefined when refused or not registered. */
type Call = <U extends string>(
  path: U,
  options?: { params?: Record<string, string>; query?: Record<string, string> },
) => Promise<AnswerOf<'GET', U> | undefined>;

function caller(deps: UiDeps, ui: UiRequestContext, request: FastifyRequest, reply: FastifyReply): Call {
  return async (path, options = {}) => {
    if (!deps.api.has('GET', path)) return undefined;
    const answer = await callApi(deps, ui, request, reply, 'GET', path, options);
    return answer.ok ? answer.data : undefined;
  };
}

/** The partner's standing and the way round the page: drawn above the partner's fields. */
export const partnerLead: DetailPart<'/partners'> = async (deps, ui, request, reply, partner) => {
  const call = caller(deps, ui, request, reply);
  const listed = await call('/partner-status', { query: { q: partner.name, limit: '500' } });
  const standing = listed?.partners.find((p) => p.id === partner.id);
  const glance = standing
    ? facts([
        ['Last received', lastMessageCell(standing.last_inbound)],
        ['Last sent', lastMessageCell(standing.last_outbound)],
        ['Reachability', reachabilityCell(standing.reachability)],
        ['Certificate expiry', certificateCell(standing.certificate, standing.certificate_count)],
      ])
    : html`<p>Not known.</p>`;
  return html`<nav class="on-this-page" aria-label="On this page">
      <a href="#partner-details">Details</a> · <a href="#profile-heading">AS2 profile</a> ·
      <a href="#partner-certificates-heading">Certificates</a> ·
      <a href="#partner-routes-heading">Routes</a> · <a href="#partner-instances-heading">Instances</a>
    </nav>
    ${section('partner-standing', 'Standing', glance)}
    <h2 id="partner-details">Details</h2>`;
};

type RemoteProfile = AnswerOf<'GET', '/as2/remote-profiles/:id'>;

/** Which certificates of the remote profile are the partner's, in words. */
const certificateUses: [ids: (profile: RemoteProfile) => (number | null)[], use: string][] = [
  [(r) => [r.partner_certificate_id], 'Encrypting to the partner'],
  [(r) => r.signature_certificate_ids, 'Verifying the partner’s signatures'],
  [(r) => r.tls_trusted_certificate_ids, 'Trusting the partner’s HTTPS server'],
  [(r) => [r.tls_client_certificate_id], 'Our TLS client certificate'],
];

async function certificatesSection(call: Call, partner: PartnerRef): Promise<Html> {
  const profileHref = `${uiPrefix}/partners/${partner.id}/profile`;
  const profile = await call('/as2/remote-profiles/:id', { params: { id: `${partner.id}` } });
  if (!profile) {
    return section(
      'partner-certificates',
      'Certificates',
      html`<p>No AS2 profile, so no certificates. <a href="${profileHref}">Add an AS2 profile</a></p>`,
    );
  }
  const rows: CertificateUse[] = [];
  for (const [idsOf, use] of certificateUses) {
    for (const id of idsOf(profile)) {
      if (id === null) continue;
      const c = await call('/certificates/:id', { params: { id: `${id}` } });
      rows.push({ ...(c ?? { id }), use });
    }
  }
  const now = Date.now();
  const expiry = (r: CertificateUse) => {
    if (!r.not_after) return '—';
    const left = new Date(r.not_after).getTime() - now;
    const flag =
      left <= 0
        ? badge('Expired', 'expired')
        : left <= 30 * 86_400_000
          ? badge(`Expires in ${Math.floor(left / 86_400_000)} days`, 'expiring')
          : badge('Valid', 'valid');
    return html`${flag} ${when(r.not_after)}`;
  };
  return overviewSection({
    id: 'partner-certificates',
    heading: 'Certificates',
    caption: 'Certificates of the partner',
    columns: [
      { label: 'Used for', cell: (r) => r.use },
      {
        label: 'Certificate',
        cell: (r) =>
          html`<a href="${uiPrefix}/certificates/${r.id}">${r.common_name ?? `certificate ${r.id}`}</a>`,
      },
      { label: 'Expiry', cell: expiry },
    ],
    rows,
    empty: 'The AS2 profile names no certificate.',
    links: html`<a href="${profileHref}">Change which certificates the profile uses</a> ·
      <a href="${uiPrefix}/certificates">Import or generate a certificate</a>`,
  });
}

/** Routes that name the partner on either side. */
async function partnerRoutes(call: Call, name: string): Promise<Route[]> {
  const listed = await call('/routes', { query: { limit: '500' } });
  return (listed?.routes ?? []).filter((r) => r.from === name || r.to === name);
}

function routesSection(routes: Route[]): Html {
  return overviewSection({
    id: 'partner-routes',
    heading: 'Routes',
    caption: 'Routes of the partner',
    columns: [
      { label: 'Route', cell: (r) => html`<a href="${uiPrefix}/routes/${r.id}">${r.name}</a>` },
      { label: 'From', cell: (r) => r.from },
      { label: 'To', cell: (r) => r.to },
      { label: 'Source', cell: (r) => r.source_plugin },
      { label: 'Document type', cell: (r) => r.document_type },
      { label: 'Target', cell: (r) => r.target_plugin },
    ],
    rows: routes,
    empty: 'No route names this partner.',
    links: html`<a href="${uiPrefix}/routes">Add a route</a>`,
  });
}

async function instancesSection(call: Call, routes: Route[]): Promise<Html> {
  const names = new Set(routes.flatMap((r) => [r.source_plugin, r.target_plugin]));
  const services = (await call('/services')) ?? [];
  const used = services.filter((s) => names.has(s.name) && s.controllable);
  return overviewSection({
    id: 'partner-instances',
    heading: 'Instances',
    caption: 'Instances the partner’s routes run through',
    columns: [
      {
        label: 'Instance',
        cell: (s) => html`<a href="${uiPrefix}/instances/${s.type}/${s.name}">${s.name}</a>`,
      },
      { label: 'Type', cell: (s) => s.type },
      {
        label: 'Status',
        cell: (s) => html`${badge(s.status)}${s.error ? html` <small>${s.error}</small>` : ''}`,
      },
    ],
    rows: used,
    empty: 'No instance yet: the partner’s routes name none.',
    links: html`<a href="${uiPrefix}/instances">All instances</a>`,
  });
}

/** The partner's certificates, routes and instances: drawn below its AS2 profile. */
export const partnerSections: DetailPart<'/partners'> = async (deps, ui, request, reply, partner) => {
  const call = caller(deps, ui, request, reply);
  const routes = await partnerRoutes(call, partner.name);
  return html`${await certificatesSection(call, partner)} ${routesSection(routes)}
  ${await instancesSection(call, routes)}`;
};
