/**
 * Planning a rollover from a certificate's page: the new certificate is put beside the current
 * ones in an AS2 profile's list, so both work while partners switch. Our own certificate (with
 * its key) joins an organization's decryption certificates, so partners may encrypt to the old
 * or the new one; a partner's certificate joins its signature certificates, so its messages
 * verify whichever key signed them. The change is a PUT of that one list through the API's
 * route, refused for the same reasons there (docs/decisions/certificate-rollover.md).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, type Html } from '../html.js';
import { uiPrefix, type UiRequestContext } from '../layout.js';
import { csrfInput } from '../form.js';
import { refusal } from '../components/data.js';
import {
  bodyFields,
  callApi,
  mustCall,
  seeOther,
  uiContext,
  type UiDeps,
} from '../components/request-context.js';

type Row = Record<string, unknown>;
const base = `${uiPrefix}/certificates`;

interface Side {
  api: string;
  party: string;
  link: 'local_organization_id' | 'business_partner_id';
  list: 'decryption_certificate_ids' | 'signature_certificate_ids';
  words: string;
}

const sides: Record<'local' | 'remote', Side> = {
  local: {
    api: '/as2/local-profiles',
    party: '/organizations',
    link: 'local_organization_id',
    list: 'decryption_certificate_ids',
    words: 'decryption certificates (partners may encrypt to any of them)',
  },
  remote: {
    api: '/as2/remote-profiles',
    party: '/partners',
    link: 'business_partner_id',
    list: 'signature_certificate_ids',
    words: 'signature certificates (its messages verify with any of them)',
  },
};

/** Our certificates (with a key) roll over in our profiles, a partner's in its profile. */
function sideOf(certificate: Row): 'local' | 'remote' {
  return certificate.has_private_key ? 'local' : 'remote';
}

interface Candidate {
  value: string;
  label: string;
}

async function candidates(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  certificate: Row,
): Promise<Candidate[]> {
  const which = sideOf(certificate);
  const side = sides[which];
  if (!deps.api.has('GET', side.api)) return [];
  const query = { query: { limit: '500' } };
  const profiles = await mustCall<Row>(deps, ui, request, reply, 'GET', side.api, query);
  const parties = await mustCall<Row>(deps, ui, request, reply, 'GET', side.party, query);
  const partyList = (parties.organizations ?? parties.partners) as Row[];
  const names = new Map(partyList.map((p) => [p.id, String(p.display_name || p.name)]));
  return (profiles.profiles as Row[])
    .filter((p) => !(p[side.list] as number[]).includes(Number(certificate.id)))
    .map((p) => ({
      value: `${which}:${String(p[side.link])}`,
      label: `${which === 'local' ? 'Organization' : 'Partner'} ${names.get(p[side.link]) ?? String(p[side.link])} — ${side.list.replace(/_/g, ' ')} now ${(p[side.list] as number[]).join(', ') || 'none'}`,
    }));
}

/** The rollover section of a certificate's page. */
export async function rolloverSection(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  certificate: Row,
): Promise<Html> {
  const options = await candidates(deps, ui, request, reply, certificate);
  const side = sides[sideOf(certificate)];
  const id = String(certificate.id);
  return html`<section aria-labelledby="rollover-heading">
    <h2 id="rollover-heading">Plan a rollover</h2>
    <p class="intro">
      Put this certificate beside the current ones in a profile's ${side.words}. Both work until you switch:
      then make it the ${sideOf(certificate) === 'local' ? 'signing certificate' : 'partner certificate'} on
      the profile's page and remove the old one.
    </p>
    ${
      options.length === 0
        ? html`<p class="empty">
            No AS2 profile of ${sideOf(certificate) === 'local' ? 'an organization' : 'a partner'} is left to
            add it to.
          </p>`
        : html`<form method="post" action="${base}/${id}/rollover" class="record-form">
            ${csrfInput(ui.csrf)}
            <div class="field">
              <label for="f-rollover-profile">Profile</label>
              <select id="f-rollover-profile" name="profile">
                ${options.map((o) => html`<option value="${o.value}">${o.label}</option>`)}
              </select>
            </div>
            <button type="submit">Add beside the current certificates</button>
          </form>`
    }
  </section>`;
}

export function registerRolloverPage(
  app: FastifyInstance,
  deps: UiDeps,
  showRefusal: (request: FastifyRequest, reply: FastifyReply, status: number, text: Html) => Promise<unknown>,
): void {
  app.post(`${base}/:id/rollover`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params as { id: string };
    const chosen = /^(local|remote):([0-9]+)$/.exec(String(bodyFields(request).profile ?? ''));
    if (!chosen) {
      return showRefusal(request, reply, 400, html`Choose the profile to add the certificate to.`);
    }
    const side = sides[chosen[1] as 'local' | 'remote'];
    const profileId = chosen[2]!;
    const profile = await callApi<Row>(deps, ui, request, reply, 'GET', `${side.api}/:id`, {
      params: { id: profileId },
    });
    if (!profile.ok) return showRefusal(request, reply, profile.error.status, refusal(profile.error));
    const current = profile.data[side.list] as number[];
    const saved = await callApi(deps, ui, request, reply, 'PUT', `${side.api}/:id`, {
      params: { id: profileId },
      body: { [side.list]: [...current.filter((c) => c !== Number(id)), Number(id)] },
    });
    if (!saved.ok) {
      const details = Object.values(saved.error.details ?? {})
        .map(String)
        .join('; ');
      return showRefusal(
        request,
        reply,
        saved.error.status,
        html`${refusal(saved.error)}${details ? html`: ${details}` : ''}`,
      );
    }
    return seeOther(reply, `${base}/${id}?saved=rollover#usage`);
  });
}
