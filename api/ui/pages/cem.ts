/**
 * Certificate exchanges (CEM): the open exchanges first with their respond-by dates, the form
 * that sends our new certificate to a partner, each partner's answering policy, and one
 * exchange's page with its certificates and, for a partner's request still open, Accept and
 * Reject. Every form runs the API's own route, so it refuses what the API refuses.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, type Html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import { csrfInput, emptyForm, field, type FormState } from '../form.js';
import {
  badge,
  bodyFields,
  callApi,
  facts,
  mustCall,
  pager,
  queryOf,
  refusal,
  sendPage,
  seeOther,
  table,
  uiContext,
  when,
  type UiDeps,
} from './common.js';

type Row = Record<string, unknown>;
const base = `${uiPrefix}/cem`;
const usages = ['signature', 'encryption', 'tls'] as const;

const stateTone: Record<string, string> = {
  pending: 'info',
  overdue: 'error',
  accepted: 'ok',
  switched: 'ok',
  rejected: 'error',
};

function certificatesCell(r: Row): Html {
  const certificates = r.certificates as Row[];
  return html`${certificates.map(
    (c) =>
      html`<div>
        ${
          c.certificate_id === null
            ? String(c.name)
            : html`<a href="${uiPrefix}/certificates/${String(c.certificate_id)}">${String(c.name)}</a>`
        }
        (${(c.usages as string[]).join(', ')}) ${badge(String(c.answer), stateTone[String(c.answer)])}
      </div>`,
  )}`;
}

const columns = [
  { label: 'Exchange', cell: (r: Row) => html`<a href="${base}/${String(r.id)}">${String(r.id)}</a>` },
  {
    label: 'Direction',
    cell: (r: Row) => (r.direction === 'outbound' ? 'ours, to the partner' : "the partner's, to us"),
  },
  { label: 'Partner', cell: (r: Row) => String(r.partner) },
  { label: 'State', cell: (r: Row) => badge(String(r.state), stateTone[String(r.state)]) },
  { label: 'Respond by', cell: (r: Row) => when(r.respond_by as string) },
  { label: 'Certificates', cell: certificatesCell },
  {
    label: 'Answered',
    cell: (r: Row) =>
      r.answered_by ? html`${when(r.answered_at as string)} by ${String(r.answered_by)}` : '—',
  },
];

async function options(
  deps: UiDeps,
  ui: ReturnType<typeof uiContext>,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const partners = await mustCall<Row>(deps, ui, request, reply, 'GET', '/partners', {
    query: { limit: '500' },
  });
  const certificates = await mustCall<Row>(deps, ui, request, reply, 'GET', '/certificates', {
    query: { key: 'present', limit: '500' },
  });
  return {
    partners: (partners.partners as Row[]).map((p) => ({ value: String(p.id), label: String(p.name) })),
    certificates: (certificates.certificates as Row[]).map((c) => ({
      value: String(c.id),
      label: `${String(c.description || c.common_name)} (until ${String(c.not_after ?? '').slice(0, 10) || '?'})`,
    })),
  };
}

async function listPage(
  deps: UiDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  send: FormState = emptyForm,
  status = 200,
  notices: Notice[] = [],
) {
  const ui = uiContext(deps, request, reply);
  const query = queryOf(request);
  const listed = await callApi<Row>(deps, ui, request, reply, 'GET', '/cem/exchanges', { query });
  const choice = await options(deps, ui, request, reply);
  const chosen = (send.values.usages as string[] | undefined) ?? ['signature', 'encryption'];
  const usageError = send.errors.usages;
  const body = html`<p class="intro">
      Certificate exchange (CEM) sends your new certificate to an AS2 partner with a date by which to answer,
      and takes a partner's new certificate the same way. A partner's certificate is stored and listed beside
      its current one as soon as its request arrives; once accepted, pier switches to it on the respond-by
      date.
    </p>
    ${
      listed.ok
        ? html`${table('Certificate exchanges', columns, listed.data.exchanges as Row[], 'No certificate exchanges yet.')}
          ${pager(base, query, listed.data as never)}`
        : html`<div class="alert alert-error" role="alert">${refusal(listed.error)}</div>`
    }
    <section aria-labelledby="send-heading">
      <h2 id="send-heading">Send our new certificate to a partner</h2>
      <form method="post" action="${base}" class="stacked">
        ${csrfInput(ui.csrf)}
        ${field({ name: 'partner_id', label: 'Partner', kind: 'select', options: choice.partners, required: true }, send)}
        ${field(
          {
            name: 'certificate_id',
            label: 'Our new certificate',
            kind: 'select',
            options: choice.certificates,
            required: true,
            hint: 'A certificate stored with its private key',
          },
          send,
        )}
        <fieldset>
          <legend>Usages</legend>
          ${usages.map(
            (u) =>
              html`<label
                ><input
                  type="checkbox"
                  name="usages"
                  value="${u}"
                  ${chosen.includes(u) ? html`checked` : ''}
                />
                ${u}</label
              >`,
          )}
          ${usageError ? html`<p class="field-error" role="alert">${String(usageError)}</p>` : ''}
        </fieldset>
        ${field(
          {
            name: 'respond_by',
            label: 'Respond by',
            required: true,
            hint: 'RFC 3339 date and time, for example 2027-01-15T12:00:00Z; pier switches on it',
          },
          send,
        )}
        ${field({ name: 'organization', label: 'Organization', hint: 'Left empty: the only one with an AS2 profile' }, send)}
        ${field({ name: 'sender', label: 'AS2 sender', hint: 'Left empty: the one the routes name, or the only one' }, send)}
        <button type="submit">Send request</button>
      </form>
    </section>
    <section aria-labelledby="policy-heading">
      <h2 id="policy-heading">Answering a partner's requests</h2>
      <form method="post" action="${base}/policy" class="stacked">
        ${csrfInput(ui.csrf)}
        ${field({ name: 'partner_id', id: 'policy-partner', label: 'Partner', kind: 'select', options: choice.partners }, emptyForm)}
        ${field(
          {
            name: 'policy',
            label: 'Policy',
            kind: 'select',
            options: [
              { value: 'manual', label: 'manual: an operator accepts or rejects' },
              { value: 'accept', label: 'accept at once' },
              { value: 'reject', label: 'reject at once' },
            ],
          },
          emptyForm,
        )}
        <button type="submit">Save policy</button>
      </form>
    </section>`;
  return sendPage(
    reply,
    ui,
    { title: 'Certificate exchange', body, notices },
    listed.ok ? status : listed.error.status,
  );
}

async function detailPage(
  deps: UiDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  status = 200,
  notices: Notice[] = [],
) {
  const ui = uiContext(deps, request, reply);
  const { id } = request.params as { id: string };
  const e = await mustCall<Row>(deps, ui, request, reply, 'GET', '/cem/exchanges/:id', { params: { id } });
  const open = e.direction === 'inbound' && e.state === 'pending';
  const message = (messageId: unknown) =>
    messageId ? html`<a href="${uiPrefix}/messages/${String(messageId)}">${String(messageId)}</a>` : '—';
  const body = html`<p><a href="${base}">All certificate exchanges</a></p>
    ${facts([
      ['State', badge(String(e.state), stateTone[String(e.state)])],
      [
        'Direction',
        e.direction === 'outbound' ? 'our request to the partner' : "the partner's request to us",
      ],
      ['Partner', String(e.partner)],
      ['Organization', String(e.organization)],
      ['Request ID', String(e.request_id)],
      ['Respond by', when(e.respond_by as string)],
      ['Request message', message(e.request_message_id)],
      ['Response message', message(e.response_message_id)],
      ['Answered', e.answered_by ? html`${when(e.answered_at as string)} by ${String(e.answered_by)}` : '—'],
      ['Switched', when(e.switched_at as string | null)],
    ])}
    <section aria-labelledby="certificates-heading">
      <h2 id="certificates-heading">Certificates</h2>
      ${table(
        'Certificates of the exchange',
        [
          {
            label: 'Certificate',
            cell: (c: Row) =>
              c.certificate_id === null
                ? String(c.name)
                : html`<a href="${uiPrefix}/certificates/${String(c.certificate_id)}">${String(c.name)}</a>`,
          },
          { label: 'Issuer', cell: (c: Row) => String(c.issuer) },
          { label: 'Serial number', cell: (c: Row) => String(c.serial_number) },
          { label: 'Usages', cell: (c: Row) => (c.usages as string[]).join(', ') },
          { label: 'Answer', cell: (c: Row) => badge(String(c.answer), stateTone[String(c.answer)]) },
          { label: 'Reason', cell: (c: Row) => (c.reason as string | null) ?? '—' },
        ],
        e.certificates as Row[],
      )}
    </section>
    ${
      open
        ? html`<section aria-labelledby="answer-heading">
            <h2 id="answer-heading">Answer the partner</h2>
            <form method="post" action="${base}/${id}/answer" class="inline">
              ${csrfInput(ui.csrf)}<input type="hidden" name="decision" value="accept" />
              <button type="submit">Accept</button>
            </form>
            <form method="post" action="${base}/${id}/answer" class="stacked">
              ${csrfInput(ui.csrf)}<input type="hidden" name="decision" value="reject" />
              ${field({ name: 'reason', label: 'Reason for rejection', hint: 'Sent to the partner' }, emptyForm)}
              <button type="submit" class="danger">Reject</button>
            </form>
          </section>`
        : ''
    }`;
  return sendPage(reply, ui, { title: `Certificate exchange ${String(e.id)}`, body, notices }, status);
}

const text = (v: string | string[] | undefined) => (Array.isArray(v) ? v.at(-1) : v)?.trim() ?? '';
const optional = (v: string | string[] | undefined) => (text(v) === '' ? undefined : text(v));
const number = (v: string | string[] | undefined) => (/^\d+$/.test(text(v)) ? Number(text(v)) : text(v));

export function registerCemPages(app: FastifyInstance, deps: UiDeps): void {
  app.get(base, (request, reply) => listPage(deps, request, reply));
  app.get(`${base}/:id`, (request, reply) => detailPage(deps, request, reply));

  app.post(base, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const fields = bodyFields(request);
    const chosen = fields.usages === undefined ? [] : ([] as string[]).concat(fields.usages);
    const sent = await callApi<Row>(deps, ui, request, reply, 'POST', '/cem/exchanges', {
      body: {
        partner_id: number(fields.partner_id),
        certificate_id: number(fields.certificate_id),
        usages: chosen,
        respond_by: text(fields.respond_by),
        organization: optional(fields.organization),
        sender: optional(fields.sender),
      },
    });
    if (sent.ok) return seeOther(reply, `${base}/${String(sent.data.id)}`);
    return listPage(
      deps,
      request,
      reply,
      { values: { ...fields, usages: chosen }, errors: sent.error.details ?? {} },
      sent.error.status,
      sent.error.code === 'INVALID_INPUT' ? [] : [{ kind: 'error', text: refusal(sent.error) }],
    );
  });

  app.post(`${base}/policy`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const fields = bodyFields(request);
    const saved = await callApi<Row>(deps, ui, request, reply, 'PUT', '/cem/policies/:id', {
      params: { id: text(fields.partner_id) },
      body: { policy: text(fields.policy) },
    });
    if (saved.ok)
      return listPage(deps, request, reply, emptyForm, 200, [
        {
          kind: 'ok',
          text: `Requests of partner ${text(fields.partner_id)} are answered: ${String(saved.data.policy)}.`,
        },
      ]);
    return listPage(deps, request, reply, emptyForm, saved.error.status, [
      { kind: 'error', text: refusal(saved.error) },
    ]);
  });

  app.post(`${base}/:id/answer`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params as { id: string };
    const fields = bodyFields(request);
    const done = await callApi(deps, ui, request, reply, 'POST', '/cem/exchanges/:id/answer', {
      params: { id },
      body: { decision: text(fields.decision), reason: optional(fields.reason) },
    });
    if (done.ok) return seeOther(reply, `${base}/${id}`);
    return detailPage(deps, request, reply, done.error.status, [
      { kind: 'error', text: refusal(done.error) },
    ]);
  });
}
