/**
 * Identity providers (docs/api/oidc-providers.md): record pages over the API's /oidc-providers routes. The
 * client secret is write-only: typed into a password field, never put in a page, shown only
 * as set or not set; a blank field keeps the stored secret, as an update that leaves it out.
 */
import { freshEm } from '../../context.js';
import { redirectUri } from '../../ui-session/oidc-flow.js';
import { OidcProviderSchema } from '../../../storage/entities/identity.js';
import { html } from '../html.js';
import { uiPrefix } from '../layout.js';
import type { CrudSpec } from './crud.js';
import { badge, facts } from '../components/data.js';

export const identityProviderSpec: CrudSpec<'/oidc-providers', 'oidc_providers'> = {
  path: '/oidc-providers',
  title: 'Identity providers',
  singular: 'identity provider',
  listKey: 'oidc_providers',
  intro:
    'OpenID Connect providers. One with sign-in on offers a sign-in button to people; any provider’s access tokens are accepted from its federated service accounts. A change counts from the next sign-in and the next token.',
  columns: [
    {
      label: 'Name',
      cell: (r) => html`<a href="${uiPrefix}/oidc-providers/${r.id}">${r.name}</a>`,
    },
    { label: 'Display name', cell: (r) => r.display_name },
    { label: 'Issuer', cell: (r) => html`<code>${r.issuer_url}</code>` },
    { label: 'Sign-in', cell: (r) => (r.sign_in ? 'yes' : 'no') },
    { label: 'Enabled', cell: (r) => badge(r.enabled ? 'enabled' : 'disabled') },
  ],
  fields: [
    'name',
    'display_name',
    'enabled',
    'issuer_url',
    'client_id',
    'client_secret',
    'scopes',
    'sign_in',
    'api_scopes',
    'api_audience',
    'accept_tokens_without_audience',
    'auto_provision_role',
  ],
  fieldOverrides: {
    name: { hint: 'Lower case letters, digits, _ or -; part of the redirect URI' },
    display_name: { hint: 'Text of the sign-in button' },
    client_secret: { hint: 'Write-only: never shown again. Required with sign-in.' },
    sign_in: { hint: 'Off for a provider that only issues access tokens to service accounts' },
  },
  writeOnly: ['client_secret'],
  async secretsSet(deps, row) {
    const stored = await freshEm(deps.ctx).findOne(
      OidcProviderSchema,
      { id: row.id },
      { fields: ['client_secret_sealed'] },
    );
    return stored && stored.client_secret_sealed !== '' ? ['client_secret'] : [];
  },
  labelOf: (r) => r.name,
  // What the operator registers at the provider: the redirect URI is made from the name.
  detailExtra: async (deps, _ui, _request, _reply, row) =>
    html`<section aria-labelledby="register-heading">
      <h2 id="register-heading">At the provider</h2>
      ${facts([
        ['Redirect URI', html`<code id="redirect-uri">${redirectUri(deps.ctx, { name: row.name })}</code>`],
        ['Client id', row.client_id],
      ])}
    </section>`,
};
