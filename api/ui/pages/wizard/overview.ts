/** The wizard's start: how it goes, and every partner with whether it is ready and what is next. */
import type { FastifyInstance } from 'fastify';
import { html } from '../../html.js';
import { table, badge } from '../../components/data.js';
import { mustCall, uiContext, type UiDeps } from '../../components/request-context.js';
import { openPage } from '../../components/index.js';
import { sendWizardPage } from './frame.js';
import { readiness } from './readiness.js';
import { loadState } from './state.js';
import { stepHref, wizardBase, wizardSteps } from './steps.js';

export function registerOverview(app: FastifyInstance, deps: UiDeps): void {
  app.get(wizardBase, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const state = await loadState(deps, ui, request, reply);
    const [partners, profiles] = await Promise.all([
      mustCall(deps, ui, request, reply, 'GET', '/partners', { query: { limit: '500' } }),
      mustCall(deps, ui, request, reply, 'GET', '/as2/remote-profiles', { query: { limit: '500' } }),
    ]);
    const as2idOf = new Map(profiles.profiles.map((p) => [p.business_partner_id, p.as2id]));
    const org = state.organization;
    const rows = partners.partners.map((p) => {
      const ids = { organization: state.ids.organization, partner: p.id };
      const verdict = readiness(
        {
          organization: org
            ? {
                id: org.id,
                name: org.name,
                as2id: state.localProfile?.as2id,
              }
            : undefined,
          partner: { id: p.id, name: p.name, as2id: as2idOf.get(p.id) },
          instances: state.instances,
          routes: state.routes,
        },
        ids,
      );
      const next = verdict.checks.find((c) => !c.ok);
      return { p, ids, verdict, next };
    });
    const body = html`<p class="intro">
        From nothing to a working exchange with a partner, one form per step: your organization and key, the
        partner and its certificate, its AS2 profile, the receiver and sender, a route each way, then a
        connection check and a test message with its receipt. Each record stays editable on its own page.
      </p>
      <p>
        ${
          org && state.localProfile
            ? html`<a class="next" href="${stepHref('partner', state.ids)}"
                >Continue: ${wizardSteps[1].title.toLowerCase()}</a
              >`
            : html`<a class="next" href="${stepHref('organization', state.ids)}"
                >Start: ${wizardSteps[0].title.toLowerCase()}</a
              >`
        }
      </p>
      <section aria-labelledby="partners-heading">
        <h2 id="partners-heading">Partners</h2>
        ${table(
          'Partners and whether they are ready',
          [
            { label: 'Partner', cell: (r) => r.p.name },
            { label: 'AS2 id', cell: (r) => as2idOf.get(r.p.id) ?? '—' },
            {
              label: 'Ready',
              cell: (r) =>
                r.verdict.ready
                  ? badge('ready', 'ok')
                  : badge(`${r.verdict.checks.filter((c) => !c.ok).length} missing`, 'warning'),
            },
            {
              label: 'Next',
              cell: (r) =>
                r.next
                  ? html`<a href="${stepHref(r.next.step, r.ids)}">${r.next.text}</a>`
                  : html`<a href="${stepHref('check', r.ids)}">Check and test</a>`,
            },
          ],
          rows,
          'No partners yet.',
        )}
      </section>`;
    return sendWizardPage(
      openPage(deps, request, reply),
      state,
      {},
      { step: undefined, title: 'Partner set-up', body },
    );
  });
}
