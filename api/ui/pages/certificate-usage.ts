/**
 * "Where it is used" on a certificate's page: the AS2 profiles of organizations and partners
 * and the plugin instances that name the certificate, with the fields that name it. The same
 * query decides the delete refusal (409 CERTIFICATE_IN_USE), so what the page lists is what
 * a delete would be refused for.
 */
import { certificateSettings } from '../../../actors/index.js';
import { certificateUsers, type CertificateUser } from '../../../storage/queries/certificate-users.js';
import { freshEm } from '../../context.js';
import { html, type Html } from '../html.js';
import { uiPrefix } from '../layout.js';
import { table } from '../components/data.js';
import { type UiDeps } from '../components/request-context.js';

const kinds: Record<CertificateUser['kind'], string> = {
  'as2-local-profile': 'AS2 profile of organization',
  'as2-remote-profile': 'AS2 profile of partner',
  'plugin-config': 'Plugin instance',
};

/** What a field that names a certificate does with it, in words (the API's name beside). */
const uses: Record<string, string> = {
  signing_certificate_id: 'signs what we send and our receipts',
  decryption_certificate_ids: 'decrypts what partners send us',
  partner_certificate_id: 'encrypts what we send the partner',
  signature_certificate_ids: 'checks the partner’s signatures',
  tls_trusted_certificate_ids: 'trusted for the partner’s HTTPS',
  tls_client_certificate_id: 'our HTTPS client certificate',
  tls_certificate_id: 'the receiver’s HTTPS certificate',
};

/** A field's use in words; an unknown one (a plugin's own) with its underscores as spaces. */
const useOf = (field: string) => uses[field] ?? field.replace(/_ids?$/, '').replace(/_/g, ' ');

/** The UI page of a user, from the API path the query gives. */
function usagePage(user: CertificateUser): string {
  const profile = /\/as2\/(local|remote)-profiles\/(\d+)$/.exec(user.link);
  if (profile)
    return `${uiPrefix}/${profile[1] === 'local' ? 'organizations' : 'partners'}/${profile[2]}/profile`;
  const config = /\/plugins\/configs\/([^/]+)\/([^/]+)$/.exec(user.link);
  return config ? `${uiPrefix}/instances/${config[1]}/${config[2]}` : user.link;
}

export async function usageSection(deps: UiDeps, certificateId: number): Promise<Html> {
  const users = await certificateUsers(freshEm(deps.ctx), [certificateId], certificateSettings);
  return html`<section aria-labelledby="usage-heading" id="usage">
    <h2 id="usage-heading">Where it is used</h2>
    ${table(
      'Where the certificate is used',
      [
        { label: 'Used by', cell: (u: CertificateUser) => kinds[u.kind] },
        { label: 'Name', cell: (u) => html`<a href="${usagePage(u)}">${u.name}</a>` },
        {
          label: 'Used for',
          cell: (u) =>
            html`${u.fields.map((f, i) => html`${i ? '; ' : ''}<span title="${f}">${useOf(f)}</span>`)}`,
        },
      ],
      users,
      'Not used by any AS2 profile or plugin instance: it can be deleted.',
    )}
  </section>`;
}
