/**
 * Step 1: our organization, its AS2 id and its key, in one submission: the organization, the
 * certificate with its key (uploaded, picked or generated) and the organization's AS2 profile
 * signing with it. An organization set up before is chosen with a link instead.
 */
import type { FastifyInstance } from 'fastify';
import { html } from '../../html.js';
import { uiPrefix } from '../../layout.js';
import { field, formErrors, formToBody, type FormState } from '../../form.js';
import { interchangeIdsField } from '../../edi-fields.js';
import { ediIdFields, wizardIdsHint } from './interchange-ids.js';
import { type UiDeps } from '../../components/request-context.js';
import { certificateChoice, choiceFieldNames, generateBody, generatePath } from './certificate-choice.js';
import { obtainCertificate } from './certificate-choice.js';
import { storedCertificates, textOf } from './form-values.js';
import { sendWizardPage } from './frame.js';
import { registerUploadStepRoutes, stepState } from './step-page.js';
import type { Answer, PageRequest } from '../../components/index.js';
import { stepHref, wizardBase } from './steps.js';

export function registerOrganizationStep(app: FastifyInstance, deps: UiDeps): void {
  const path = `${wizardBase}/organization`;

  const page = async (
    p: PageRequest,
    form: FormState = {
      values: { source: 'upload', key_algorithm: 'rsa-2048', output: 'self-signed' },
      errors: {},
    },
    answer: Answer = {},
  ) => {
    const { ui, request, reply } = p;
    const state = await stepState(p);
    const stored = await storedCertificates(deps, ui, request, reply);
    const current = state.organization && state.localProfile ? state.organization : undefined;
    const choice = {
      ownKey: true,
      canGenerate: deps.api.has('POST', generatePath),
      stored,
      legend: 'Your key and certificate',
    };
    const body = html`<p class="intro">
        Your side of the exchange: the organization partners send to, the AS2 id that names it on the wire,
        and the key that signs your messages and opens theirs. Partners receive its certificate from you.
      </p>
      ${
        current
          ? html`<section aria-labelledby="current-heading" class="done-summary">
              <h2 id="current-heading">Done: ${current.name}</h2>
              <p>
                AS2 id <strong>${state.localProfile!.as2id}</strong>, signing with
                <a href="${uiPrefix}/certificates/${state.localProfile!.signing_certificate_id}"
                  >certificate ${state.localProfile!.signing_certificate_id}</a
                >
                (<a
                  href="${uiPrefix}/certificates/${state.localProfile!.signing_certificate_id}/download"
                  download
                  >download it for your partner</a
                >). Edit <a href="${uiPrefix}/organizations/${current.id}">the organization</a> or
                <a href="${uiPrefix}/organizations/${current.id}/profile">its AS2 profile</a>.
              </p>
              <p><a class="next" href="${stepHref('partner', state.ids)}">Next: the partner</a></p>
            </section>`
          : ''
      }
      ${
        state.organizations.length > 0
          ? html`<section aria-labelledby="existing-heading">
              <h2 id="existing-heading">Organizations set up before</h2>
              <ul>
                ${state.organizations.map(
                  (o) =>
                    html`<li>
                      <a href="${stepHref('partner', { organization: o.id })}">Continue with ${o.name}</a>
                      (AS2 id ${o.as2id})
                    </li>`,
                )}
              </ul>
            </section>`
          : ''
      }
      <section aria-labelledby="new-heading">
        <h2 id="new-heading">
          ${state.organizations.length > 0 ? 'A new organization' : 'Your organization'}
        </h2>
        <form method="post" action="${path}" enctype="multipart/form-data" class="record-form" novalidate>
          ${formErrors(form, ['name', 'display_name', 'as2id', 'interchange_ids', ...choiceFieldNames(choice)])}
          ${field({ name: 'name', label: 'Name in pier', hint: 'Lower case letters, digits, _ or -; used in routes and folders', required: true }, form)}
          ${field({ name: 'display_name', label: 'Display name', hint: 'Your company’s name as people write it' }, form)}
          ${field({ name: 'as2id', label: 'AS2 id', hint: 'What partners know you by (AS2-From); agreed with them', required: true }, form)}
          ${interchangeIdsField({ label: 'Your interchange ids (EDI, optional)', hint: wizardIdsHint('your') }, form)}
          ${certificateChoice(choice, form)}
          <button type="submit">Create organization and key</button>
        </form>
      </section>`;
    return sendWizardPage(p, state, answer, {
      step: 'organization',
      title: 'Partner set-up: your organization',
      body,
    });
  };

  registerUploadStepRoutes(app, deps, path, page, ['certificate', 'private_key'], async (p, step) => {
    const { form, work, keep, refused } = step;
    const name = textOf(form.fields, 'name');
    const as2id = textOf(form.fields, 'as2id');
    const displayName = textOf(form.fields, 'display_name');
    const source = textOf(form.fields, 'source');
    const orgBody = formToBody(deps.api.bodySchema('POST', '/organizations'), {
      name,
      display_name: displayName,
      ...ediIdFields(form.fields),
    });
    const profileSchema = deps.api.bodySchema('POST', '/as2/local-profiles');
    const profileBody = formToBody(profileSchema, { as2id });
    const certificateField = source === 'stored' ? 'certificate_id' : 'certificate';
    const orgPlace = {
      label: 'Organization',
      fields: { name: 'name', display_name: 'display_name', interchange_ids: 'interchange_ids' },
    };
    const profilePlace = {
      label: 'AS2 profile',
      fields: {
        as2id: 'as2id',
        signing_certificate_id: certificateField,
        decryption_certificate_ids: certificateField,
      },
    };
    const description = `${name} AS2 key`;
    work.precheck(deps.api.bodySchema('POST', '/organizations'), orgBody, orgPlace);
    work.precheck(profileSchema, profileBody, profilePlace, [
      'local_organization_id',
      'signing_certificate_id',
    ]);
    if (source === 'generate' && deps.api.has('POST', generatePath)) {
      const body = generateBody(form, { description, commonName: as2id, organization: displayName || name });
      if (body)
        work.precheck(deps.api.bodySchema('POST', generatePath), body, {
          label: 'Key generation',
          fields: {
            key: 'key_algorithm',
            subject: 'common_name',
            valid_days: 'valid_days',
            output: 'output',
          },
        });
    }
    if (work.failed) return refused();

    const org = await work.call('POST', '/organizations', { body: orgBody }, orgPlace);
    if (!org) return refused();
    work.made(`organization ${org.name}`, 'DELETE', '/organizations/:id', { id: `${org.id}` });
    const certificate = await obtainCertificate(
      work,
      form,
      { ownKey: true, description, commonName: as2id, organization: displayName || name },
      keep,
    );
    if (!certificate) return refused();
    const profile = await work.call(
      'POST',
      '/as2/local-profiles',
      { body: { ...profileBody, local_organization_id: org.id, signing_certificate_id: certificate.id } },
      profilePlace,
    );
    if (!profile) return refused();
    return p.redirect(stepHref('partner', { organization: org.id }));
  });
}
