/**
 * Step 3: the partner's AS2 profile: its AS2 id and address, the certificate from step 2, the
 * interop preset for the partner's product, and the security settings at their secure
 * defaults (signed, encrypted, a signed receipt). Less common settings are folded; every
 * setting stays editable on the profile page.
 */
import type { FastifyInstance } from 'fastify';
import { interopPresets } from '../../../../protocol/as2/interop-presets.js';
import { html } from '../../html.js';
import { uiPrefix } from '../../layout.js';
import { csrfInput, field, formErrors, formToBody, shapeOf, specFromSchema } from '../../form.js';
import { type FieldSpec, type FormState } from '../../form.js';
import { type UiDeps } from '../../components/request-context.js';
import { keptValues, storedCertificates } from './form-values.js';
import { sendWizardPage } from './frame.js';
import { registerStepRoutes, stepState } from './step-page.js';
import type { Answer, PageRequest } from '../../components/index.js';
import { type StoredCertificate } from './state.js';
import { presetList } from '../as2-profile.js';
import { StepWork } from './step-work.js';
import { stepHref, wizardBase } from './steps.js';

const labels: Record<string, string> = {
  as2id: 'Partner’s AS2 id',
  endpoint: 'Partner’s AS2 URL',
  interop_preset: 'Partner’s AS2 product',
  partner_certificate_id: 'Partner’s certificate',
  signing_algorithm: 'Sign with',
  encryption_algorithm: 'Encrypt with',
  compression: 'Compress',
  mdn_mode: 'Receipt (MDN)',
  mdn_signed: 'Ask for a signed receipt',
  receipt_timeout_hours: 'Wait for an asynchronous receipt (hours)',
  tls_verify: 'Verify the partner’s HTTPS certificate',
  inbound_signature: 'Messages from the partner must be signed',
  inbound_encryption: 'Messages from the partner must be encrypted',
  http_basic_user: 'HTTP basic user',
  http_basic_password: 'HTTP basic password',
};
const main = [
  'as2id',
  'endpoint',
  'interop_preset',
  'partner_certificate_id',
  'signing_algorithm',
  'encryption_algorithm',
  'compression',
  'mdn_mode',
  'mdn_signed',
];
const folded = [
  'receipt_timeout_hours',
  'tls_verify',
  'inbound_signature',
  'inbound_encryption',
  'http_basic_user',
  'http_basic_password',
];
const writeOnly = ['http_basic_password'];

function specs(schema: unknown, certificates: StoredCertificate[], names: string[]): FieldSpec[] {
  const shape = shapeOf(schema as never);
  return names
    .filter((n) => n in shape)
    .map((n) => {
      const spec = { ...specFromSchema(n, shape[n]!), label: labels[n] ?? n, id: `f-${n}` };
      if (n === 'partner_certificate_id') {
        spec.kind = 'select';
        spec.options = [
          { value: '', label: 'none (messages are not encrypted)' },
          ...certificates.map((c) => ({
            value: `${c.id}`,
            label: `${c.description || c.common_name} (${c.common_name}, until ${c.not_after.slice(0, 10)})`,
          })),
        ];
      }
      if (n === 'interop_preset') {
        spec.kind = 'select';
        spec.hint = 'Settings known to work with the partner’s product; none for current standards';
        spec.options = [
          { value: '', label: 'none: current standards' },
          ...Object.entries(interopPresets).map(([k, p]) => ({ value: k, label: `${p.description} (${k})` })),
        ];
      }
      if (n === 'http_basic_password') {
        spec.kind = 'password';
        spec.hint = 'Entered, never shown again';
      }
      if (n === 'endpoint')
        spec.hint = 'The address the partner gave you, such as https://as2.example.com/as2';
      if (n === 'as2id')
        spec.hint =
          'What the partner is known by (AS2-To), as agreed with it; first guessed from its certificate’s name';
      return spec;
    });
}

/**
 * The partner's certificate for the form: the one step 2 passed along, else (the step opened by
 * its tab) the newest stored for this partner by step 2 (`<name> AS2 certificate`), so the step
 * never loses it.
 */
function partnerCertificate(
  certificates: StoredCertificate[],
  passed: string | undefined,
  partner: string,
): StoredCertificate | undefined {
  if (passed) return certificates.find((c) => `${c.id}` === passed);
  return certificates
    .filter((c) => c.description === `${partner} AS2 certificate`)
    .sort((a, b) => b.id - a.id)[0];
}

export function registerProfileStep(app: FastifyInstance, deps: UiDeps): void {
  const path = `${wizardBase}/profile`;
  const schema = deps.api.bodySchema('POST', '/as2/remote-profiles');

  const page = async (p: PageRequest, form?: FormState, answer: Answer = {}) => {
    const { ui, request, reply } = p;
    const state = await stepState(p);
    if (!state.partner) return p.redirect(stepHref('partner', state.ids));
    const certificates = (await storedCertificates(deps, ui, request, reply)).filter(
      (c) => !c.has_private_key,
    );
    const chosen = partnerCertificate(certificates, p.query.certificate, state.partner.name);
    const state0: FormState = form ?? {
      values: chosen
        ? {
            partner_certificate_id: `${chosen.id}`,
            // A partner's certificate usually names it by its AS2 id: a first guess to check.
            ...(chosen.common_name ? { as2id: chosen.common_name } : {}),
          }
        : {},
      errors: {},
    };
    const partnerName = state.partner.name;
    const profileHref = `${uiPrefix}/partners/${state.partner.id}/profile`;
    const mainSpecs = specs(schema, certificates, main);
    const foldedSpecs = specs(schema, certificates, folded);
    const body = state.remoteProfile
      ? html`<section aria-labelledby="current-heading" class="done-summary">
          <h2 id="current-heading">Done: the AS2 profile of ${partnerName}</h2>
          <p>
            AS2 id <strong>${state.remoteProfile.as2id}</strong> at
            <code>${state.remoteProfile.endpoint}</code>, preset
            ${state.remoteProfile.interop_preset ?? 'none'}.
            <a href="${profileHref}">Edit the AS2 profile</a>.
          </p>
          <p><a class="next" href="${stepHref('instances', state.ids)}">Next: the receiver and sender</a></p>
        </section>`
      : html`<p class="intro">
            How to reach ${partnerName} and how to protect what you send it. The defaults are what AS2
            partners expect: signed with SHA-256, encrypted with AES-256, a signed receipt on the same
            connection.
          </p>
          ${presetList('What each product preset changes', false)}
          <form method="post" action="${stepHref('profile', state.ids)}" class="record-form" novalidate>
            ${csrfInput(p.ui.csrf)} ${formErrors(state0, [...main, ...folded])}
            ${mainSpecs.map((s) => field(s, state0))}
            <details class="advanced" ${foldedSpecs.some((s) => s.name in state0.errors) ? html` open` : ''}>
              <summary>More settings</summary>
              ${foldedSpecs.map((s) => field(s, state0))}
            </details>
            <button type="submit">Create AS2 profile</button>
          </form>`;
    return sendWizardPage(p, state, answer, {
      step: 'profile',
      title: `Partner set-up: AS2 profile of ${partnerName}`,
      body,
    });
  };

  registerStepRoutes(app, deps, path, page, async (p) => {
    const { ui, request, reply } = p;
    const state = await stepState(p);
    if (!state.partner) return p.redirect(stepHref('partner', state.ids));
    const fields = p.fields;
    const work = new StepWork(deps, ui, request, reply);
    const body = { business_partner_id: Number(state.partner.id), ...formToBody(schema, fields, writeOnly) };
    const place = {
      label: 'AS2 profile',
      fields: {
        ...Object.fromEntries([...main, ...folded].map((n) => [n, n])),
        // The API checks the partner's signatures with these; the form fills them from its certificate.
        signature_certificate_ids: 'partner_certificate_id',
      },
    };
    const made = await work.call('POST', '/as2/remote-profiles', { body }, place);
    if (!made)
      return page(
        p,
        { values: keptValues(fields, writeOnly), errors: work.errors },
        { status: work.status, notices: work.notices },
      );
    return p.redirect(stepHref('instances', state.ids));
  });
}
