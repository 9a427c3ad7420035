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
import type { AnswerOf } from '../api-answers.js';
import type { PathOf } from '../components/page-frame.js';
import type { ApiOutcome } from '../call-api.js';

/** What the rollover needs of the certificate whose page it is on. */
type Certificate = Pick<AnswerOf<'GET', '/certificates/:id'>, 'id' | 'has_private_key'>;
type Which = 'local' | 'remote';
/** A profile as the rollover reads it: its party, and the certificates of the list that rolls over. */
interface ProfileList {
  party: number;
  ids: number[];
}
const base = `${uiPrefix}/certificates`;

interface Side {
  api: string;
  list: 'decryption_certificate_ids' | 'signature_certificate_ids';
  words: string;
}

const sides: Record<Which, Side> = {
  local: {
    api: '/as2/local-profiles',
    list: 'decryption_certificate_ids',
    words: 'decryption certificates (partners may encrypt to any of them)',
  },
  remote: {
    api: '/as2/remote-profiles',
    list: 'signature_certificate_ids',
    words: 'signature certificates (its messages verify with any of them)',
  },
};

/** Our certificates (with a key) roll over in our profiles, a partner's in its profile. */
function sideOf(certificate: Certificate): Which {
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
  certificate: Certificate,
): Promise<Candidate[]> {
  const which = sideOf(certificate);
  const side = sides[which];
  if (!deps.api.has('GET', side.api)) return [];
  const query = { query: { limit: '500' } };
  const named = (parties: { id: number; name: string; display_name: string }[]) =>
    new Map(parties.map((p) => [p.id, p.display_name || p.name]));
  let profiles: ProfileList[];
  let names: Map<number, string>;
  if (which === 'local') {
    const listed = await mustCall(deps, ui, request, reply, 'GET', '/as2/local-profiles', query);
    profiles = listed.profiles.map((p) => ({
      party: p.local_organization_id,
      ids: p.decryption_certificate_ids,
    }));
    names = named((await mustCall(deps, ui, request, reply, 'GET', '/organizations', query)).organizations);
  } else {
    const listed = await mustCall(deps, ui, request, reply, 'GET', '/as2/remote-profiles', query);
    profiles = listed.profiles.map((p) => ({
      party: p.business_partner_id,
      ids: p.signature_certificate_ids,
    }));
    names = named((await mustCall(deps, ui, request, reply, 'GET', '/partners', query)).partners);
  }
  return profiles
    .filter((p) => !p.ids.includes(certificate.id))
    .map((p) => ({
      value: `${which}:${p.party}`,
      label: `${which === 'local' ? 'Organization' : 'Partner'} ${names.get(p.party) ?? p.party} — ${side.list.replace(/_/g, ' ')} now ${p.ids.join(', ') || 'none'}`,
    }));
}

/** The certificates of the list that rolls over, in the profile `id` of side `which`. */
async function currentList(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  which: Which,
  id: string,
): Promise<ApiOutcome<number[]>> {
  const input = { params: { id } };
  if (which === 'local') {
    const got = await callApi(deps, ui, request, reply, 'GET', '/as2/local-profiles/:id', input);
    return got.ok ? { ok: true, data: got.data.decryption_certificate_ids } : got;
  }
  const got = await callApi(deps, ui, request, reply, 'GET', '/as2/remote-profiles/:id', input);
  return got.ok ? { ok: true, data: got.data.signature_certificate_ids } : got;
}

/** The rollover section of a certificate's page. */
export async function rolloverSection(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  certificate: Certificate,
): Promise<Html> {
  const options = await candidates(deps, ui, request, reply, certificate);
  const side = sides[sideOf(certificate)];
  const id = certificate.id;
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
  showRefusal: (
    request: FastifyRequest<PathOf<'id'>>,
    reply: FastifyReply,
    status: number,
    text: Html,
  ) => Promise<unknown>,
): void {
  app.post<PathOf<'id'>>(`${base}/:id/rollover`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params;
    const chosen = /^(local|remote):([0-9]+)$/.exec(String(bodyFields(request).profile ?? ''));
    if (!chosen) {
      return showRefusal(request, reply, 400, html`Choose the profile to add the certificate to.`);
    }
    const which: Which = chosen[1] === 'local' ? 'local' : 'remote';
    const side = sides[which];
    const profileId = chosen[2]!;
    const profile = await currentList(deps, ui, request, reply, which, profileId);
    if (!profile.ok) return showRefusal(request, reply, profile.error.status, refusal(profile.error));
    const current = profile.data;
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
