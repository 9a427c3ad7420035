/**
 * What the partner needs from us, offered as soon as we have it: our AS2 id and certificate once
 * step 1 is done, our AS2 URL once a receiver exists. The partner's own step 2 waits for these,
 * so the wizard shows them from its step 2 on, not only at the end.
 */
import { html, type Html } from '../../html.js';
import { uiPrefix } from '../../layout.js';
import { facts } from '../../components/data.js';
import { type UiDeps } from '../../components/request-context.js';
import { partnerFacingUrl } from './receivers.js';
import type { ReceiverConfig, WizardState } from './state.js';

export function givePartner(
  deps: UiDeps,
  state: WizardState,
  partner: string,
  receiver: ReceiverConfig | undefined,
): Html {
  const profile = state.localProfile;
  if (!profile && !receiver) return html``;
  return html`<section aria-labelledby="give-heading">
    <h2 id="give-heading">Give ${partner} these</h2>
    ${facts([
      [
        'Your AS2 URL',
        receiver
          ? html`<code id="our-url">${partnerFacingUrl(receiver, deps.ctx.options.publicUrl)}</code>`
          : html`<span id="our-url">set with the receiver in step 4</span>`,
      ],
      ['Your AS2 id', profile ? html`<code id="our-as2id">${profile.as2id}</code>` : '—'],
      [
        'Your certificate',
        profile
          ? html`<a
              id="our-certificate"
              href="${uiPrefix}/certificates/${profile.signing_certificate_id}/download"
              download
              >Download it (PEM)</a
            >`
          : '—',
      ],
    ])}
    ${receiver && !deps.ctx.options.publicUrlGiven ? html`<p class="hint">The host is PUBLIC_URL's, which is not set: use the name partners reach this server by.</p>` : ''}
  </section>`;
}
