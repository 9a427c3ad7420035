/**
 * Step 6: the connection check (each step of reaching the partner, no message sent), a test
 * message followed on this page until its receipt arrives, and whether the partner is ready.
 * One submission does both (the test message goes only when the check passed); each alone
 * is still offered, for a second try of one of them.
 */
import type { FastifyInstance } from 'fastify';
import { html, type Html } from '../../html.js';
import { checkResult, openPage, type AnswerOf, type CheckAnswer } from '../../components/index.js';
import { uiPrefix } from '../../layout.js';
import { csrfInput, field } from '../../form.js';
import { liveRegion } from '../../live.js';
import { badge, facts, refusal } from '../../components/data.js';
import { type UiDeps } from '../../components/request-context.js';
import { textOf } from './form-values.js';
import { readinessList, sendWizardPage } from './frame.js';
import { findRoutes } from './readiness.js';
import { receiverConfigs } from './receivers.js';
import { givePartner } from './give-partner.js';
import { notifierNotice } from '../notifier-notice.js';
import { registerStepRoutes, stepState } from './step-page.js';
import type { Answer, PageRequest, PathOf } from '../../components/index.js';
import { type Row, type WizardState } from './state.js';

type Message = AnswerOf<'GET', '/messages/:id'>;
import { stepHref, wizardBase } from './steps.js';

function connectionSteps(result: CheckAnswer): Html {
  return checkResult('check', 'Connection check', result);
}

/** The test message as it travels, and its receipt once it is back. */
export function testMessageView(m: Message): Html {
  // Each protocol module says what it records (api/schemas/message.ts): the page shows AS2's as found.
  const as2 = m.protocols.as2 as Row | undefined;
  const mdn = (as2?.mdn ?? null) as Row | null;
  const show = (v: unknown) =>
    v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return html`${facts([
      ['Status', badge(m.status, m.status.toLowerCase())],
      ['File', m.file_name],
      ['From', m.from],
      ['To', m.to],
      ['AS2 Message-ID', as2 ? String(as2.message_id ?? '—') : '—'],
    ])}
    <h3>Receipt (MDN)</h3>
    ${
      mdn
        ? html`<div id="receipt">
            ${facts(Object.entries(mdn).map(([k, v]) => [k.replace(/_/g, ' '), show(v)]))}
          </div>`
        : html`<p id="receipt-waiting">
            No receipt
            yet${m.status === 'AwaitingReceipt' || m.status === 'InProgress' || m.status === 'Received' ? ': waiting for it' : ''}.
          </p>`
    }
    <p>
      <a href="${uiPrefix}/messages/${m.id}">The whole message: deliveries, history, downloads</a>
    </p>`;
}

function senderOptions(state: WizardState) {
  return state.instances
    .filter((i) => i.type === 'as2-sender')
    .map((i) => ({ value: i.name, label: `${i.name} (${i.status})` }));
}

export function registerCheckStep(app: FastifyInstance, deps: UiDeps): void {
  const stepPath = `${wizardBase}/check`;

  const page = async (p: PageRequest, extra: Html = html``, answer: Answer = {}, sentId?: string) => {
    const { ui, request, reply } = p;
    const state = await stepState(p);
    if (!state.partner || !state.remoteProfile)
      return p.redirect(stepHref(state.partner ? 'profile' : 'partner', state.ids));
    const partner = state.partner.name;
    const messageId = sentId ?? p.query.message;
    const { inbound, outbound } = findRoutes({
      organization: state.organization ? { id: 0, name: state.organization.name } : undefined,
      partner: { id: 0, name: partner },
      instances: state.instances,
      routes: state.routes,
    });
    const configs = await receiverConfigs(deps, ui, request, reply, state.instances);
    const receiver = configs.get(inbound?.source_plugin ?? '') ?? [...configs.values()][0];
    const sender = outbound?.target_plugin ?? senderOptions(state)[0]?.value ?? '';
    const senderState = { values: { sender }, errors: {} };
    const partnerId = state.partner.id;
    let message: Html = html``;
    if (messageId) {
      const got = await p.call('GET', '/messages/:id', {
        params: { id: messageId },
      });
      message = got.ok
        ? html`<section aria-labelledby="test-heading">
            <h2 id="test-heading">Test message</h2>
            ${liveRegion({ name: 'test-message', url: `${wizardBase}/test-message/${messageId}`, content: testMessageView(got.data), announce: true })}
          </section>`
        : html`<div class="alert alert-error" role="alert">${refusal(got.error)}</div>`;
    }
    const body = html`${readinessList(state.readiness, partner)} ${notifierNotice(state.instances)}
      ${givePartner(deps, state, partner, receiver)}
      <section aria-labelledby="try-heading">
        <h2 id="try-heading">Try it</h2>
        <form method="post" action="${stepHref('check', state.ids)}" class="record-form">
          ${csrfInput(p.ui.csrf)}
          ${field({ name: 'sender', id: 'check-sender', label: 'AS2 sender', kind: 'select', options: senderOptions(state) }, senderState)}
          <button type="submit" name="action" value="both">Check and send a test message</button>
          <button type="submit" name="action" value="check">Check the connection only</button>
          <button type="submit" name="action" value="test">Send a test message only</button>
        </form>
        <p class="hint">
          The check reaches ${partner}'s address step by step and sends nothing; the test message, a small
          text file, follows when the check passed. Its receipt appears below when ${partner} answers. Both
          are also on
          <a href="${uiPrefix}/partners/${partnerId}/profile">the AS2 profile page</a>.
        </p>
      </section>
      ${extra} ${message}`;
    return sendWizardPage(p, state, answer, {
      step: 'check',
      title: `Partner set-up: check and test ${partner}`,
      body,
      ...(messageId ? { live: { messageId } } : {}),
    });
  };

  registerStepRoutes(app, deps, stepPath, page, async (p) => {
    const state = await stepState(p);
    if (!state.partner) return p.redirect(stepHref('partner', state.ids));
    const fields = p.fields;
    const sender = textOf(fields, 'sender');
    const params = { id: `${state.partner.id}` };
    const action = textOf(fields, 'action');
    const sendTest = (shown: Html) => async () => {
      const body = {
        ...(sender ? { sender } : {}),
        ...(state.organization ? { organization: state.organization.name } : {}),
      };
      const sent = await p.call('POST', '/as2/remote-profiles/:id/test-message', { params, body });
      if (sent.ok) {
        const id = sent.data.message_id;
        // With the check's steps on the page, the page is drawn here; alone, the message's address is kept.
        if (action === 'both') return page(p, shown, {}, id);
        return p.redirect(stepHref('check', state.ids, { message: id }));
      }
      return page(p, shown, {
        status: sent.error.status,
        notices: [{ kind: 'error', text: html`Test message: ${refusal(sent.error)}` }],
      });
    };
    if (action === 'test') return sendTest(html``)();
    const checked = await p.call('POST', '/as2/remote-profiles/:id/check-connection', {
      params,
      body: sender ? { sender } : {},
    });
    if (!checked.ok) {
      return page(p, html``, {
        status: checked.error.status,
        notices: [{ kind: 'error', text: html`Connection check: ${refusal(checked.error)}` }],
      });
    }
    if (action === 'both' && checked.data.ok) return sendTest(connectionSteps(checked.data))();
    return page(p, connectionSteps(checked.data));
  });

  app.get<PathOf<'id'>>(`${wizardBase}/test-message/:id`, async (request, reply) => {
    // The test message's region alone, for live refreshes (htmx swaps it in).
    const p = openPage(deps, request, reply);
    const id = p.params.id;
    const got = await p.call('GET', '/messages/:id', { params: { id } });
    if (!got.ok) throw got.error;
    return reply.type('text/html; charset=utf-8').send(testMessageView(got.data).text);
  });
}
