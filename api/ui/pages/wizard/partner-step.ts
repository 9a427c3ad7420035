/**
 * Step 2: the partner and its certificate, in one submission: the partner record and the
 * certificate it sent (uploaded, or picked from those stored), which the next step's profile
 * encrypts to and checks signatures with.
 */
import type { FastifyInstance } from 'fastify';
import { html } from '../../html.js';
import { uiPrefix } from '../../layout.js';
import { field, formErrors, formToBody, type FormState } from '../../form.js';
import { interchangeIdsField } from '../../edi-fields.js';
import { ediIdFields, wizardIdsHint } from './interchange-ids.js';
import { type UiDeps } from '../../components/request-context.js';
import { certificateChoice, choiceFieldNames, obtainCertificate } from './certificate-choice.js';
import { storedCertificates, textOf } from './form-values.js';
import { sendWizardPage } from './frame.js';
import { givePartner } from './give-partner.js';
import { receiverConfigs } from './receivers.js';
import { registerUploadStepRoutes, stepState } from './step-page.js';
import type { Answer, PageRequest } from '../../components/index.js';
import { idsOf, stepHref, wizardBase } from './steps.js';

export function registerPartnerStep(app: FastifyInstance, deps: UiDeps): void {
  const path = `${wizardBase}/partner`;

  const page = async (
    p: PageRequest,
    form: FormState = { values: { source: 'upload' }, errors: {} },
    answer: Answer = {},
  ) => {
    const { ui, request, reply } = p;
    const state = await stepState(p);
    const stored = await storedCertificates(deps, ui, request, reply);
    const partners = await p.call('GET', '/partners', {
      query: { limit: '500' },
    });
    const others = (partners.ok ? partners.data.partners : []).filter((p) => p.id !== state.ids.partner);
    const current = state.partner;
    const choice = { ownKey: false, canGenerate: false, stored, legend: 'The partner’s certificate' };
    const body = html`<p class="intro">
        The partner: its name in pier (used in routes and folders) and the certificate it sent you, which
        encrypts what you send it and checks its signatures.
      </p>
      ${
        current
          ? html`<section aria-labelledby="current-heading" class="done-summary">
              <h2 id="current-heading">Done: ${current.name}</h2>
              <p>Edit <a href="${uiPrefix}/partners/${current.id}">the partner</a>.</p>
              <p><a class="next" href="${stepHref('profile', state.ids)}">Next: the AS2 profile</a></p>
            </section>`
          : ''
      }
      ${givePartner(deps, state, current ? current.name : 'the partner', [...(await receiverConfigs(deps, ui, request, reply, state.instances)).values()][0])}
      ${
        others.length > 0
          ? html`<section aria-labelledby="existing-heading">
              <h2 id="existing-heading">Partners made before</h2>
              <ul>
                ${others.map(
                  (p) =>
                    html`<li>
                      <a href="${stepHref('profile', { ...state.ids, partner: p.id })}"
                        >Continue with ${p.name}</a
                      >
                    </li>`,
                )}
              </ul>
            </section>`
          : ''
      }
      <section aria-labelledby="new-heading">
        <h2 id="new-heading">A new partner</h2>
        <form
          method="post"
          action="${stepHref('partner', state.ids)}"
          enctype="multipart/form-data"
          class="record-form"
          novalidate
        >
          ${formErrors(form, ['name', 'display_name', 'interchange_ids', ...choiceFieldNames(choice)])}
          ${field({ name: 'name', label: 'Name in pier', hint: 'Lower case letters, digits, _ or -; received files go to a folder of this name', required: true }, form)}
          ${field({ name: 'display_name', label: 'Display name', hint: 'The partner’s company name' }, form)}
          ${interchangeIdsField({ label: 'The partner’s interchange ids (EDI, optional)', hint: wizardIdsHint('the partner’s') }, form)}
          ${certificateChoice(choice, form)}
          <button type="submit">Create partner</button>
        </form>
      </section>`;
    return sendWizardPage(p, state, answer, {
      step: 'partner',
      title: 'Partner set-up: the partner',
      body,
    });
  };

  registerUploadStepRoutes(app, deps, path, page, ['certificate'], async (p, step) => {
    const { form, work, keep, refused } = step;
    const name = textOf(form.fields, 'name');
    const schema = deps.api.bodySchema('POST', '/partners');
    const partnerBody = formToBody(schema, {
      name,
      display_name: textOf(form.fields, 'display_name'),
      ...ediIdFields(form.fields),
    });
    const place = {
      label: 'Partner',
      fields: { name: 'name', display_name: 'display_name', interchange_ids: 'interchange_ids' },
    };
    work.precheck(schema, partnerBody, place);
    if (work.failed) return refused();
    const partner = await work.call('POST', '/partners', { body: partnerBody }, place);
    if (!partner) return refused();
    work.made(`partner ${partner.name}`, 'DELETE', '/partners/:id', { id: `${partner.id}` });
    const certificate = await obtainCertificate(
      work,
      form,
      { ownKey: false, description: `${name} AS2 certificate`, commonName: name },
      keep,
    );
    if (!certificate) return refused();
    const ids = { ...idsOf(p.request.query), partner: partner.id };
    return p.redirect(stepHref('profile', ids, { certificate: `${certificate.id}` }));
  });
}
