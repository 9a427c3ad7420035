/**
 * Partner set-up, step by step: party → certificates → AS2 profile (interop preset from a
 * list that says what each does) → connection check → test message followed to its receipt.
 * Each step is done on the page that owns it (same forms, same API routes); this page says
 * which steps are done and leads to the next.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../html.js';
import { uiPrefix } from '../layout.js';
import { csrfInput, emptyForm, field, formErrors, formToBody } from '../form.js';
import { bodyFields, callApi, refusal, sendPage, seeOther, uiContext, type UiDeps } from './common.js';

type Row = Record<string, unknown>;
const base = `${uiPrefix}/wizard`;

export function registerWizard(app: FastifyInstance, deps: UiDeps): void {
  const page = async (request: FastifyRequest, reply: FastifyReply, state = emptyForm, status = 200) => {
    const ui = uiContext(deps, request, reply);
    const partnerId = (request.query as { partner?: string }).partner;
    const partner = partnerId
      ? await callApi<Row>(deps, ui, request, reply, 'GET', '/partners/:id', { params: { id: partnerId } })
      : undefined;
    const profile = partner?.ok
      ? await callApi<Row>(deps, ui, request, reply, 'GET', '/as2/remote-profiles/:id', {
          params: { id: partnerId! },
        })
      : undefined;
    const steps = ['Partner', 'Certificates', 'AS2 profile', 'Check connection', 'Test message'];
    const current = !partner?.ok ? 0 : !profile?.ok ? 1 : 3;
    const body = html` <ol class="wizard-steps">
        ${steps.map((s, i) => html`<li${i === current ? html` aria-current="step"` : ''}>${i + 1}. ${s}${i < current ? ' ✓' : ''}</li>`)}
      </ol>
      ${
        current === 0
          ? html`<h2>1. The partner</h2>
              <form method="post" action="${base}" class="record-form" novalidate>
                ${csrfInput(ui.csrf)} ${formErrors(state, ['name', 'display_name'])}
                ${field({ name: 'name', label: 'Name', hint: 'Lower case letters, digits, _ or -', required: true }, state)}
                ${field({ name: 'display_name', label: 'Display name' }, state)}
                <button type="submit">Create partner and continue</button>
              </form>`
          : current === 1
            ? html`<h2>2. Certificates</h2>
                <p>
                  Upload the partner's certificate (it encrypts to them and checks their signatures) on the
                  <a href="${uiPrefix}/certificates">certificates page</a>, or pick one already stored. Your
                  own organization needs a certificate with its private key and a
                  <a href="${uiPrefix}/organizations">local AS2 profile</a>.
                </p>
                <h2>3. AS2 profile</h2>
                <p>
                  <a href="${uiPrefix}/partners/${partnerId}/profile"
                    >Set up the AS2 profile of ${String((partner!.ok && partner!.data.name) || '')}</a
                  >: AS2 id, endpoint, certificates and the interop preset for the partner's product.
                </p>`
            : html`<h2>4. Check the connection, 5. send a test message</h2>
                <p>
                  The profile is saved. On the
                  <a href="${uiPrefix}/partners/${partnerId}/profile">profile page</a>,
                  <strong>Check connection</strong> shows each step (certificates, resolve, connect, TLS,
                  HTTP), and <strong>Send a test message</strong> opens the message, whose history shows the
                  receipt (MDN) when it arrives.
                </p>`
      }`;
    return sendPage(reply, ui, { title: 'Partner set-up', body }, status);
  };
  app.get(base, (request, reply) => page(request, reply));
  app.post(base, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const fields = bodyFields(request);
    const made = await callApi<Row>(deps, ui, request, reply, 'POST', '/partners', {
      body: formToBody(deps.api.bodySchema('POST', '/partners'), fields),
    });
    if (made.ok) return seeOther(reply, `${base}?partner=${String(made.data.id)}`);
    if (made.error.code !== 'INVALID_INPUT')
      return page(
        request,
        reply,
        { values: fields, errors: { _form: refusal(made.error).text } },
        made.error.status,
      );
    return page(request, reply, { values: fields, errors: made.error.details ?? {} }, made.error.status);
  });
}
