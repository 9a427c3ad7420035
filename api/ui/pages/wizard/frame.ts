/** The wizard's page frame: the steps with where this run stands, and the readiness list. */
import { html, type Html } from '../../html.js';
import { assetPrefix, type Notice } from '../../layout.js';
import type { Answer, PageRequest } from '../../components/index.js';
import type { Check, Readiness } from './readiness.js';
import type { WizardState } from './state.js';
import { stepHref, wizardSteps, type StepKey } from './steps.js';

function stepDone(step: StepKey, state: WizardState): boolean {
  const ok = (...keys: Check['key'][]) =>
    keys.every((k) => state.readiness.checks.find((c) => c.key === k)?.ok);
  switch (step) {
    case 'organization':
      return ok('organization');
    case 'partner':
      return state.partner !== undefined;
    case 'profile':
      return state.remoteProfile !== undefined;
    case 'instances':
      return ok('receiver', 'sender');
    case 'routes':
      return ok('inbound-route', 'outbound-route');
    case 'check':
      return state.readiness.ready;
  }
}

export function stepNav(current: StepKey | undefined, state: WizardState): Html {
  return html`<nav aria-label="Onboarding steps">
    <ol class="wizard-steps">
      ${wizardSteps.map((s, i) => {
        const done = stepDone(s.key, state);
        return html`<li class="${done ? 'done' : 'todo'}">
          <a href="${stepHref(s.key, state.ids)}" ${s.key === current ? html` aria-current="step"` : ''}
            >${i + 1}. ${s.title}</a
          >
          <span class="step-state">${done ? 'done' : 'to do'}</span>
        </li>`;
      })}
    </ol>
  </nav>`;
}

/** What the partner has and lacks, each with the page that fixes or edits it. */
export function readinessList(readiness: Readiness, partnerName: string | undefined): Html {
  const missing = readiness.checks.filter((c) => !c.ok).length;
  const who = partnerName ?? 'The partner';
  return html`<section aria-labelledby="ready-heading" class="readiness">
    <h2 id="ready-heading">Ready?</h2>
    <p class="verdict ${readiness.ready ? 'verdict-ready' : 'verdict-not-ready'}" id="verdict">
      ${
        readiness.ready
          ? `${who} is ready: both profiles, a receiver and a sender, and a route each way.`
          : `${who} is not ready: ${missing} ${missing === 1 ? 'part is' : 'parts are'} missing.`
      }
    </p>
    <ul class="checklist">
      ${readiness.checks.map(
        (c) =>
          html`<li class="${c.ok ? 'check-ok' : 'check-missing'}" data-check="${c.key}">
            <strong>${c.ok ? 'Done' : 'Missing'}:</strong> ${c.text}.
            <a href="${c.link.href}">${c.link.label}</a>
          </li>`,
      )}
    </ul>
  </section>`;
}

export interface WizardPage {
  step: StepKey | undefined;
  title: string;
  body: Html;
  notices?: Notice[];
  status?: number;
  live?: { messageId?: string };
}

export function sendWizardPage(p: PageRequest, state: WizardState, answer: Answer, page: WizardPage) {
  return p.send(
    {
      title: page.title,
      body: html`${stepNav(page.step, state)}${page.body}`,
      notices: page.notices ?? [],
      styles: [`${assetPrefix}/app/wizard.css`],
      ...(page.live ? { live: page.live } : {}),
    },
    { status: answer.status ?? page.status, notices: answer.notices },
  );
}
