/** Organizations, partners, routes and service accounts: record pages from the API's own routes. */
import type { FastifyInstance } from 'fastify';
import { html } from '../html.js';
import { uiPrefix } from '../layout.js';
import { registerCrudPages, type CrudSpec } from './crud.js';
import { badge, when } from '../components/data.js';
import { type UiDeps } from '../components/request-context.js';
import { profileSection } from './as2-profile.js';
import { identityProviderSpec } from './identity-providers.js';
import { partnerStatusColumns } from './partner-status-cells.js';
import { partnerLead, partnerSections } from './partner-overview.js';

/** The name of a record, linked to its page. */
const link = (base: string) => (r: { id: number; name: string }) =>
  html`<a href="${uiPrefix}${base}/${r.id}">${r.name}</a>`;
const qFilter = { name: 'q', label: 'Search', hint: 'Text in name or display name' };

const organizationSpec: CrudSpec<'/organizations', 'organizations'> = {
  path: '/organizations',
  title: 'Organizations',
  singular: 'organization',
  listKey: 'organizations',
  intro:
    'Your own parties. Each may have a local AS2 profile: its AS2 id and its signing and decryption keys.',
  columns: [
    { label: 'Name', cell: link('/organizations') },
    { label: 'Display name', cell: (r) => r.display_name },
    { label: 'Updated', cell: (r) => when(r.updated_at) },
  ],
  filters: [qFilter],
  fields: ['name', 'display_name', 'interchange_ids'],
  labelOf: (r) => r.name,
  detailExtra: (deps, ui, request, reply, row) => profileSection(deps, ui, request, reply, 'local', row),
};

const partnerSpec: CrudSpec<'/partners', 'partners', '/partner-status'> = {
  path: '/partners',
  title: 'Partners',
  singular: 'partner',
  listKey: 'partners',
  intro: 'Business partners. Each may have a remote AS2 profile: where and how to send to them.',
  listPath: '/partner-status',
  columns: partnerStatusColumns,
  filters: [qFilter],
  fields: [
    'name',
    'display_name',
    'interchange_ids',
    'x12_acknowledgement',
    'edifact_acknowledgement',
    'acknowledgement_due_hours',
    'speaks_for',
    'edi_envelope',
  ],
  labelOf: (r) => r.name,
  detailLead: partnerLead,
  detailExtra: async (deps, ui, request, reply, row) =>
    html`${await profileSection(deps, ui, request, reply, 'remote', row)}
      ${await partnerSections(deps, ui, request, reply, row)}
      <p>
        <a class="button" href="${uiPrefix}/config/download?partner=${encodeURIComponent(row.name)}" download
          >Export this partner</a
        >
        as a configuration file (<a href="${uiPrefix}/config">export all, or import</a>)
      </p>`,
};

const routeSpec: CrudSpec<'/routes', 'routes'> = {
  path: '/routes',
  title: 'Routes',
  singular: 'route',
  listKey: 'routes',
  intro:
    'A message from a source instance between two parties goes to the target instance of the route that matches. A saved route applies to the next message.',
  columns: [
    { label: 'Name', cell: link('/routes') },
    { label: 'Source', cell: (r) => r.source_plugin },
    { label: 'From', cell: (r) => r.from },
    { label: 'To', cell: (r) => r.to },
    { label: 'Document type', cell: (r) => r.document_type },
    { label: 'Target', cell: (r) => r.target_plugin },
  ],
  fields: ['name', 'source_plugin', 'from', 'to', 'document_type', 'target_plugin'],
  pickers: 'route',
  labelOf: (r) => String(r.name),
};

const serviceAccountSpec: CrudSpec<'/service-accounts', 'service_accounts'> = {
  path: '/service-accounts',
  title: 'Service accounts',
  singular: 'service account',
  listKey: 'service_accounts',
  intro:
    'Machine clients of the API. A local account authenticates with API tokens; a federated one with its identity provider’s tokens.',
  columns: [
    { label: 'Name', cell: link('/service-accounts') },
    { label: 'Kind', cell: (r) => r.kind },
    { label: 'Enabled', cell: (r) => badge(r.enabled ? 'enabled' : 'disabled') },
    { label: 'Last used', cell: (r) => when(r.last_used_at) },
  ],
  fields: ['name', 'description', 'kind', 'enabled', 'oidc_issuer', 'oidc_subject'],
  fixedOnUpdate: ['name', 'kind'],
  pickers: 'service-account',
  labelOf: (r) => r.name,
};

export function registerRecordPages(app: FastifyInstance, deps: UiDeps): void {
  // One call per resource, each spec typed by its own routes.
  const register = <P extends string, K extends string, L extends string>(spec: CrudSpec<P, K, L>) => {
    if (deps.api.has('GET', spec.path)) registerCrudPages(app, deps, spec);
  };
  register(organizationSpec);
  register(partnerSpec);
  register(routeSpec);
  register(identityProviderSpec);
  register(serviceAccountSpec);
}
