/**
 * Certificate exchanges (CEM): the open exchanges first with their respond-by dates, the form
 * that sends our new certificate to a partner, each partner's answering policy, and one
 * exchange's page with its certificates and, for a partner's request still open, Accept and
 * Reject. Every form runs the API's own route, so it refuses what the API refuses.
 */
import type { FastifyInstance } from 'fastify';
import { html, type Html } from '../html.js';
import { uiPrefix } from '../layout.js';
import { csrfInput, emptyForm, field, type FormState } from '../form.js';
import { backLink, badge, facts, listWithFilters, openPage } from '../components/index.js';
import { refused, table, when } from '../components/index.js';
import type { Answer, AnswerOf, PageRequest, PathOf, UiDeps } from '../components/index.js';

type Exchange = AnswerOf<'GET', '/cem/exchanges/:id'>;
type ExchangeCertificate = Exchange['certificates'][number];
const base = `${uiPrefix}/cem`;
const usages = ['signature', 'encryption', 'tls'] as const;

const stateTone: Record<string, string> = {
  pending: 'info',
  overdue: 'error',
  accepted: 'ok',
  switched: 'ok',
  rejected: 'error',
};

function certificatesCell(r: Exchange): Html {
  return html`${r.certificates.map(
    (c) =>
      html`<div>
        ${
          c.certificate_id === null
            ? c.name
            : html`<a href="${uiPrefix}/certificates/${c.certificate_id}">${c.name}</a>`
        }
        (${c.usages.join(', ')}) ${badge(c.answer, stateTone[c.answer])}
      </div>`,
  )}`;
}

const columns = [
  { label: 'Exchange', cell: (r: Exchange) => html`<a href="${base}/${r.id}">${r.id}</a>` },
  {
    label: 'Direction',
    cell: (r: Exchange) => (r.direction === 'outbound' ? 'ours, to the partner' : "the partner's, to us"),
  },
  { label: 'Partner', cell: (r: Exchange) => r.partner },
  { label: 'State', cell: (r: Exchange) => badge(r.state, stateTone[r.state]) },
  { label: 'Respond by', cell: (r: Exchange) => when(r.respond_by) },
  { label: 'Certificates', cell: certificatesCell },
  {
    label: 'Answered',
    cell: (r: Exchange) => (r.answered_by ? html`${when(r.answered_at)} by ${r.answered_by}` : '—'),
  },
];

async function options(p: PageRequest) {
  const partners = await p.must('GET', '/partners', {
    query: { limit: '500' },
  });
  const certificates = await p.must('GET', '/certificates', {
    query: { key: 'present', limit: '500' },
  });
  return {
    partners: partners.partners.map((p) => ({ value: String(p.id), label: p.name })),
    certificates: certificates.certificates.map((c) => ({
      value: String(c.id),
      label: `${c.description || c.common_name} (until ${c.not_after.slice(0, 10) || '?'})`,
    })),
  };
}

async function listPage(p: PageRequest, send: FormState = emptyForm, answer: Answer = {}) {
  const list = await listWithFilters(p, {
    api: '/cem/exchanges',
    path: base,
    listKey: 'exchanges',
    caption: 'Certificate exchanges',
    columns,
    empty: 'No certificate exchanges yet.',
  });
  const choice = await options(p);
  const chosen = (send.values.usages as string[] | undefined) ?? ['signature', 'encryption'];
  const usageError = send.errors.usages;
  const body = html`<p class="intro">
      Certificate exchange (CEM) sends your new certificate to an AS2 partner with a date by which to answer,
      and takes a partner's new certificate the same way. A partner's certificate is stored and listed beside
      its current one as soon as its request arrives; once accepted, pier switches to it on the respond-by
      date.
    </p>
    ${list.body}
    <section aria-labelledby="send-heading">
      <h2 id="send-heading">Send our new certificate to a partner</h2>
      <form method="post" action="${base}" class="stacked">
        ${csrfInput(p.ui.csrf)}
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
        ${csrfInput(p.ui.csrf)}
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
  return p.send(
    { title: 'Certificate exchange', body },
    { notices: answer.notices, status: list.data ? answer.status : list.status },
  );
}

async function detailPage(p: PageRequest<PathOf<'id'>>, answer: Answer = {}) {
  const id = p.params.id;
  const e = await p.must('GET', '/cem/exchanges/:id', { params: { id } });
  const open = e.direction === 'inbound' && e.state === 'pending';
  const message = (messageId: string | null) =>
    messageId ? html`<a href="${uiPrefix}/messages/${messageId}">${messageId}</a>` : '—';
  const body = html`${backLink(base, 'All certificate exchanges')}
    ${facts([
      ['State', badge(e.state, stateTone[e.state])],
      [
        'Direction',
        e.direction === 'outbound' ? 'our request to the partner' : "the partner's request to us",
      ],
      ['Partner', e.partner],
      ['Organization', e.organization],
      ['Request ID', e.request_id],
      ['Respond by', when(e.respond_by)],
      ['Request message', message(e.request_message_id)],
      ['Response message', message(e.response_message_id)],
      ['Answered', e.answered_by ? html`${when(e.answered_at)} by ${e.answered_by}` : '—'],
      ['Switched', when(e.switched_at)],
    ])}
    <section aria-labelledby="certificates-heading">
      <h2 id="certificates-heading">Certificates</h2>
      ${table(
        'Certificates of the exchange',
        [
          {
            label: 'Certificate',
            cell: (c: ExchangeCertificate) =>
              c.certificate_id === null
                ? c.name
                : html`<a href="${uiPrefix}/certificates/${c.certificate_id}">${c.name}</a>`,
          },
          { label: 'Issuer', cell: (c: ExchangeCertificate) => c.issuer },
          { label: 'Serial number', cell: (c: ExchangeCertificate) => c.serial_number },
          { label: 'Usages', cell: (c: ExchangeCertificate) => c.usages.join(', ') },
          { label: 'Answer', cell: (c: ExchangeCertificate) => badge(c.answer, stateTone[c.answer]) },
          { label: 'Reason', cell: (c: ExchangeCertificate) => c.reason ?? '—' },
        ],
        e.certificates,
      )}
    </section>
    ${
      open
        ? html`<section aria-labelledby="answer-heading">
            <h2 id="answer-heading">Answer the partner</h2>
            <form method="post" action="${base}/${id}/answer" class="inline">
              ${csrfInput(p.ui.csrf)}<input type="hidden" name="decision" value="accept" />
              <button type="submit">Accept</button>
            </form>
            <form method="post" action="${base}/${id}/answer" class="stacked">
              ${csrfInput(p.ui.csrf)}<input type="hidden" name="decision" value="reject" />
              ${field({ name: 'reason', label: 'Reason for rejection', hint: 'Sent to the partner' }, emptyForm)}
              <button type="submit" class="danger">Reject</button>
            </form>
          </section>`
        : ''
    }`;
  return p.send({ title: `Certificate exchange ${e.id}`, body }, answer);
}

const text = (v: string | string[] | undefined) => (Array.isArray(v) ? v.at(-1) : v)?.trim() ?? '';
const optional = (v: string | string[] | undefined) => (text(v) === '' ? undefined : text(v));
const number = (v: string | string[] | undefined) => (/^\d+$/.test(text(v)) ? Number(text(v)) : text(v));

export function registerCemPages(app: FastifyInstance, deps: UiDeps): void {
  app.get(base, (request, reply) => listPage(openPage(deps, request, reply)));
  app.get<PathOf<'id'>>(`${base}/:id`, (request, reply) => detailPage(openPage(deps, request, reply)));

  app.post(base, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const fields = p.fields;
    const chosen = fields.usages === undefined ? [] : ([] as string[]).concat(fields.usages);
    const sent = await p.call('POST', '/cem/exchanges', {
      body: {
        partner_id: number(fields.partner_id),
        certificate_id: number(fields.certificate_id),
        usages: chosen,
        respond_by: text(fields.respond_by),
        organization: optional(fields.organization),
        sender: optional(fields.sender),
      },
    });
    if (sent.ok) return p.redirect(`${base}/${sent.data.id}`);
    return listPage(
      p,
      { values: { ...fields, usages: chosen }, errors: sent.error.details ?? {} },
      sent.error.code === 'INVALID_INPUT' ? { status: sent.error.status } : refused(sent.error),
    );
  });

  app.post(`${base}/policy`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const fields = p.fields;
    const saved = await p.call('PUT', '/cem/policies/:id', {
      params: { id: text(fields.partner_id) },
      body: { policy: text(fields.policy) },
    });
    if (saved.ok)
      return listPage(p, emptyForm, {
        notices: [
          {
            kind: 'ok',
            text: `Requests of partner ${text(fields.partner_id)} are answered: ${saved.data.policy}.`,
          },
        ],
      });
    return listPage(p, emptyForm, refused(saved.error));
  });

  app.post<PathOf<'id'>>(`${base}/:id/answer`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const id = p.params.id;
    const fields = p.fields;
    const done = await p.call('POST', '/cem/exchanges/:id/answer', {
      params: { id },
      body: { decision: text(fields.decision), reason: optional(fields.reason) },
    });
    if (done.ok) return p.redirect(`${base}/${id}`);
    return detailPage(p, refused(done.error));
  });
}
