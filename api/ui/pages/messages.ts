/**
 * Messages: the list with every filter of docs/api/conventions.md#lists and paging, the detail page (deliveries,
 * history timeline, payload stages, AS2 facts, redispatch and redeliver with the API's 409
 * answers in words), and sending a file by hand.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { messageStatuses } from '../../../flow/tables/status.js';
import { acknowledgementStatuses } from '../../schemas/message.js';
import type { ApiError } from '../../errors.js';
import type { z } from 'zod';
import { freshEm } from '../../context.js';
import { listMessages } from '../../resources/messages/service.js';
import { payloadStages, type MessageListQuery } from '../../schemas/message.js';
import { html, href, type Html } from '../html.js';
import { uiPrefix, type Notice, type UiRequestContext } from '../layout.js';
import { csrfInput, emptyForm, field, formErrors, type FieldSpec, type FormState } from '../form.js';
import { asPicker, type Choices, type PickerKind } from '../pickers.js';
import { submittedFields } from '../../resources/messages/upload.js';
import {
  backLink,
  badge,
  facts,
  openPage,
  pager,
  refusal,
  refused,
  type PageInfo,
} from '../components/index.js';
import { refusedState } from '../components/index.js';
import {
  table,
  when,
  type Answer,
  type AnswerOf,
  type PageRequest,
  type PathOf,
  type UiDeps,
} from '../components/index.js';
import { liveRegion, liveStatus } from '../live.js';
import { ediTreeSlot } from '../edi-tree.js';
import { limits } from '../../../limits/limits.js';

type Row = Record<string, unknown>;
type Message = AnswerOf<'GET', '/messages/:id'>;
type Delivery = Message['deliveries'][number];
type HistoryLine = Message['history'][number];
const base = `${uiPrefix}/messages`;

function statusBadge(status: Message['status']): Html {
  return badge(status, status.toLowerCase());
}

function messageRows(rows: readonly Message[]): Html {
  return table(
    'Messages',
    [
      { label: 'Created', cell: (r: Message) => when(r.created_at) },
      {
        label: 'Status',
        cell: (r) => html`<span data-status-of="${r.id}">${statusBadge(r.status)}</span>`,
      },
      { label: 'Direction', cell: (r) => r.direction },
      { label: 'From', cell: (r) => r.from },
      { label: 'To', cell: (r) => r.to },
      {
        label: 'File',
        cell: (r) => html`<a href="${base}/${r.id}">${r.file_name || r.id}</a>`,
      },
    ],
    rows,
    'No messages match.',
  );
}

type Listed = { ok: true; data: AnswerOf<'GET', '/messages'> & PageInfo } | { ok: false; error: ApiError };

/**
 * The list as GET /messages reads its query (same schema, same refusals) from the same
 * service, with the total counted as the UI can afford at a million messages.
 */
async function listForUi(
  deps: UiDeps,
  request: FastifyRequest,
  query: Record<string, string>,
): Promise<Listed> {
  const parsed = deps.api.parseQuery<z.output<typeof MessageListQuery>>('GET', '/messages', query, request);
  if (!parsed.ok) return parsed;
  const page = await listMessages(freshEm(deps.ctx), parsed.data, { exactUpTo: limits.exactCountUpTo });
  return {
    ok: true,
    data: {
      messages: page.items,
      total: page.total,
      totalEstimated: page.totalEstimated,
      limit: page.limit,
      offset: page.offset,
    },
  };
}

async function listPage(p: PageRequest, send: FormState, answer: Answer = {}) {
  const { deps, query } = p;
  const listed = await listForUi(deps, p.request, query);
  const errors = listed.ok ? {} : (listed.error.details ?? {});
  const filterState = { values: query, errors };
  // One GET form: every filter is in the URL, so a search can be bookmarked and shared.
  const body = html` <form
      class="filters"
      method="get"
      action="${base}"
      role="search"
      aria-label="Find messages"
    >
      <div class="search-box">
        ${field({ name: 'q', label: 'Find a message', hint: 'File name or its beginning, AS2 Message-ID, or partner', id: 'f-q' }, filterState)}
      </div>
      ${field({ name: 'status', label: 'Status', kind: 'select', options: [{ value: '', label: 'any' }, ...messageStatuses] }, filterState)}
      ${field({ name: 'direction', label: 'Direction', kind: 'select', options: [{ value: '', label: 'any' }, 'inbound', 'outbound'] }, filterState)}
      ${field({ name: 'from', label: 'From', hint: 'Party name' }, filterState)}
      ${field({ name: 'to', label: 'To', hint: 'Party name' }, filterState)}
      ${field({ name: 'since', label: 'Since', hint: 'RFC 3339 time or a date, e.g. 2026-11-01' }, filterState)}
      <details
        class="filters-more"
        ${['edi_sender', 'edi_receiver', 'edi_control', 'document_type', 'acknowledgement'].some((k) => query[k]) ? 'open' : ''}
      >
        <summary>EDI envelope</summary>
        ${field({ name: 'edi_sender', label: 'EDI sender', hint: 'Interchange id (ISA06, UNB sender)' }, filterState)}
        ${field({ name: 'edi_receiver', label: 'EDI receiver', hint: 'Interchange id (ISA08, UNB recipient)' }, filterState)}
        ${field({ name: 'edi_control', label: 'Control number', hint: 'Interchange or group control number' }, filterState)}
        ${field({ name: 'document_type', label: 'Document type', hint: '850, 856, ORDERS, INVOIC…' }, filterState)}
        ${field({ name: 'acknowledgement', label: 'Acknowledgement', kind: 'select', options: [{ value: '', label: 'any' }, ...acknowledgementStatuses] }, filterState)}
      </details>
      <button type="submit">Search</button>
      ${Object.keys(query).some((k) => k !== 'offset' && k !== 'limit') ? html`<a href="${base}">Clear</a>` : ''}
    </form>
    ${listed.ok ? searchSummary(query, listed.data) : ''}
    ${
      listed.ok
        ? html`${liveRegion({ name: 'messages', url: `${base}/rows${href('', query)}`, content: messageRows(listed.data.messages) })}${pager(base, query, listed.data)}`
        : html`<div class="alert alert-error" role="alert">${refusal(listed.error)}</div>`
    }
    ${deps.api.has('POST', '/messages') ? sendForm(p.ui.csrf, send, await p.choices({ parties: true, instances: true })) : ''}`;
  return p.send({ title: 'Messages', body, live: {} }, answer);
}

/** The form that sends a file by hand: the parties and the target picked from lists. */
function sendForm(csrf: string, state: FormState, choices: Choices): Html {
  const pick = (spec: FieldSpec, kind: PickerKind) =>
    field(asPicker(spec, kind, choices, state.values[spec.name]), state);
  const names = ['from', 'to', 'target', 'file'];
  return html`<section aria-labelledby="send-heading">
    <h2 id="send-heading">Send a file by hand</h2>
    <form method="post" action="${base}/send" enctype="multipart/form-data" class="record-form" novalidate>
      ${formErrors(state, names)}
      ${pick({ name: 'from', label: 'From', hint: 'An organization or a partner', required: true }, 'party')}
      ${pick({ name: 'to', label: 'To', hint: 'A party of the other kind', required: true }, 'party')}
      ${pick({ name: 'target', label: 'Target', hint: 'The target instance; by default the one the routes from From to To name' }, 'target-or-routes')}
      ${field({ name: 'file', label: 'File', kind: 'file', hint: 'At most 64 MiB', required: true }, state)}
      <button type="submit">Send</button>
    </form>
    <p>
      EDI given as JSON, or documents pier puts in envelopes: <a href="${base}/edi-json">Send EDI as JSON</a>.
    </p>
  </section>`;
}

function deliveryActions(csrf: string, id: string, d: Delivery): Html {
  return html`<form method="post" action="${base}/${id}/deliveries/${d.id}/redeliver" class="inline">
    ${csrfInput(csrf)}<button type="submit" class="small">Redeliver</button>
  </form>`;
}

/** A value of protocols.as2 in words: nested facts (signature, encryption) as a list, never JSON. */
function shownValue(v: unknown): Html | string {
  if (v === null || v === undefined || v === '') return '—';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (Array.isArray(v))
    return v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ');
  if (typeof v === 'object') {
    return facts(Object.entries(v as Row).map(([k, x]) => [words(k), shownValue(x)]));
  }
  return String(v);
}

const words = (key: string) => key.replace(/_/g, ' ');

/** AS2 and MIME headers as a table: one row per header, in the order they travelled. */
function headersTable(caption: string, headers: Row): Html {
  return table(
    caption,
    [
      { label: 'Header', cell: ([name]: [string, unknown]) => html`<code>${name}</code>` },
      { label: 'Value', cell: ([, value]) => html`<span class="header-value">${String(value)}</span>` },
    ],
    Object.entries(headers),
    'No headers were recorded.',
  );
}

function as2Facts(as2: Row | undefined): Html {
  if (!as2) return html`<p>No AS2 facts: this message did not travel by AS2.</p>`;
  const mdn = (as2.mdn ?? null) as Row | null;
  const headers = (as2.headers ?? null) as Row | null;
  const entries = Object.entries(as2).filter(([k]) => k !== 'mdn' && k !== 'headers');
  const mdnHeaders = (mdn?.headers ?? null) as Row | null;
  const mdnEntries = mdn ? Object.entries(mdn).filter(([k]) => k !== 'headers') : [];
  return html`${facts(entries.map(([k, v]) => [words(k), shownValue(v)]))}
    <h3>AS2 headers</h3>
    <div data-headers="message">
      ${headers ? headersTable('AS2 headers', headers) : html`<p>No headers were recorded.</p>`}
    </div>
    <h3>Receipt (MDN)</h3>
    ${
      mdn
        ? html`${facts(mdnEntries.map(([k, v]) => [words(k), shownValue(v)]))}${
            mdnHeaders
              ? html`<h4>Receipt headers</h4>
                  ${headersTable('Receipt headers', mdnHeaders)}`
              : ''
          }`
        : html`<p>No receipt.</p>`
    }`;
}

/** What the search found, in words, so a shared link says what it shows. */
function searchSummary(query: Record<string, string>, data: PageInfo): Html | string {
  if (!query.q) return '';
  const total = data.total;
  return html`<p class="search-summary" role="status">
    ${total === 0 ? 'No message' : total === 1 ? '1 message' : `${data.totalEstimated ? 'about ' : ''}${total} messages`}
    found for <strong>${query.q}</strong>.
  </p>`;
}

function timeline(history: readonly HistoryLine[]): Html {
  return html`<ol class="timeline">
    ${history.map(
      (h) =>
        html`<li>
          ${when(h.created_at)} <strong>${h.kind.replace(/_/g, ' ')}</strong>
          ${h.old_status || h.new_status ? html`${h.old_status ?? '—'} → ${h.new_status ?? ''}` : ''}
          ${h.old_state || h.new_state ? html` (${h.target ?? ''}: ${h.old_state ?? '—'} → ${h.new_state ?? ''})` : ''}
          ${h.text ? html`<span class="text">${h.text}</span>` : ''}
        </li>`,
    )}
  </ol>`;
}

/** What a screen reader hears when the message changes: its status and the latest history line. */
function statusLine(m: Message): string {
  const latest = m.history[m.history.length - 1];
  const what = latest ? `; latest: ${latest.kind.replace(/_/g, ' ')}` : '';
  return `Status ${m.status}, stage ${m.stage}${what}`;
}

/** The EDI envelope and the functional acknowledgement, for a payload that is an interchange. */
function ediSection(edi: Row | undefined, id: string): Html {
  if (!edi) return html``;
  const party = (p: Row) => `${p.qualifier ? `${String(p.qualifier)}:` : ''}${String(p.id)}`;
  const ack = edi.acknowledgement as Row;
  const ackId = ack.message_id as string | null;
  return html`<section aria-labelledby="edi-heading">
    <h2 id="edi-heading">EDI envelope</h2>
    ${facts([
      ['Standard', `${String(edi.standard).toUpperCase()} ${String(edi.version)}`],
      ['Sender', party(edi.sender as Row)],
      ['Receiver', party(edi.receiver as Row)],
      ['Interchange control', String(edi.interchange_control)],
      ['Group controls', (edi.group_controls as string[]).join(', ') || '—'],
      ['Document types', (edi.document_types as string[]).join(', ') || '—'],
      ['Acknowledgement', ack.status ? badge(String(ack.status)) : '—'],
      ['Acknowledgement due', when(ack.due_at as string | null)],
      ['Acknowledgement message', ackId ? html`<a href="${base}/${ackId}">${ackId}</a>` : '—'],
      ['Acknowledgement problem', ack.problem as string | null],
      [
        'JSON form',
        html`<a id="edi-json-link" href="${href(`${base}/${id}/payload`, { format: 'json' })}"
            >The interchange as JSON</a
          >
          (pier's EDI JSON, with element names; see the interchange below)`,
      ],
    ])}
  </section>`;
}

/** The parts of a message's page that change as it travels: refreshed live, swapped whole. */
function messageSections(ui: UiRequestContext, id: string, m: Message): Html {
  const { deliveries, payloads } = m;
  const protocols = m.protocols as Record<string, Row | undefined>;
  const stages = payloadStages.filter(
    (s) => s in payloads || (s === 'message' && 'received' in payloads && 'headers' in payloads),
  );
  return html`${facts([
      ['Status', statusBadge(m.status)],
      ['Stage', m.stage],
      ['Direction', m.direction],
      ['From', m.from],
      ['To', m.to],
      ['File', m.file_name],
      ['Source', `${m.source_type}/${m.source_name}`],
      ['Refusal', m.refusal],
      ['Created', when(m.created_at)],
      ['Id', html`<code>${id}</code>`],
    ])}
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      ${table(
        // Not the section's own name: two regions of one name confuse landmark navigation.
        'Deliveries of this message, one per target',
        [
          { label: 'Target', cell: (d: Delivery) => d.target },
          { label: 'State', cell: (d) => badge(d.state) },
          { label: 'Attempts', cell: (d) => d.attempts },
          { label: 'Next attempt', cell: (d) => when(d.next_attempt_at) },
          { label: 'Last error', cell: (d) => d.last_error || '—' },
          { label: 'Finished', cell: (d) => when(d.finished_at) },
          { label: 'Action', cell: (d) => deliveryActions(ui.csrf, id, d) },
        ],
        deliveries,
        'No deliveries.',
      )}
    </section>
    <section aria-labelledby="payloads-heading">
      <h2 id="payloads-heading">Payload stages</h2>
      ${
        stages.length === 0
          ? html`<p>No stored payload.</p>`
          : html`<ul class="downloads">
              ${stages.map((s) => {
                const p = payloads[s];
                return html`<li>
                  <a href="${href(`${base}/${id}/payload`, { stage: s })}" download>${s}</a
                  >${p ? html` — ${p.size_bytes} bytes, stored ${when(p.stored_at)}` : ' — made from headers and received'}
                </li>`;
              })}
            </ul>`
      }
    </section>
    ${ediSection(protocols.edi, id)} ${protocols.edi ? ediTreeSlot(id) : ''}
    <section aria-labelledby="as2-heading">
      <h2 id="as2-heading">AS2</h2>
      ${as2Facts(protocols.as2)}
    </section>
    <section aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      ${timeline(m.history)}
    </section>`;
}

async function detailPage(p: PageRequest<PathOf<'id'>>, answer: Answer = {}) {
  const id = p.params.id;
  const m = await p.must('GET', '/messages/:id', { params: { id } });
  const done = p.query.done;
  const body = html` ${backLink(base, 'All messages')} ${liveStatus('message-status', statusLine(m))}
    <form method="post" action="${base}/${id}/redispatch" class="inline">
      ${csrfInput(p.ui.csrf)} <button type="submit">Redispatch</button>
    </form>
    ${liveRegion({ name: 'message', url: `${base}/${id}/live`, content: messageSections(p.ui, id, m) })}`;
  const okNotice: Notice[] = done
    ? [
        {
          kind: 'ok',
          text:
            done === 'redeliver'
              ? 'Delivery queued again.'
              : done === 'redispatch'
                ? 'Redispatch requested.'
                : 'Sent.',
        },
      ]
    : [];
  return p.send(
    { title: `Message ${m.file_name || id}`, body, notices: okNotice, live: { messageId: id } },
    answer,
  );
}

export function registerMessagePages(app: FastifyInstance, deps: UiDeps): void {
  app.get(base, (request, reply) => {
    // The search form sends its blank filters too; the page answers at the URL without them,
    // so the address to bookmark or share names only the filters that were set.
    const raw = (request.query ?? {}) as Record<string, unknown>;
    const p = openPage(deps, request, reply);
    if (Object.values(raw).some((v) => v === '')) return p.redirect(href(base, p.query));
    return listPage(p, emptyForm);
  });
  app.get(`${base}/rows`, async (request, reply) => {
    // The list's rows alone, for live refreshes of the list region (htmx swaps them in).
    const p = openPage(deps, request, reply); // signed in, or sent to sign in
    const listed = await listForUi(deps, request, p.query);
    if (!listed.ok) throw listed.error;
    return reply.type('text/html; charset=utf-8').send(messageRows(listed.data.messages).text);
  });
  app.get<PathOf<'id'>>(`${base}/:id`, (request, reply) => detailPage(openPage(deps, request, reply)));
  app.get<PathOf<'id'>>(`${base}/:id/live`, async (request, reply) => {
    // The changing parts of the message's page, and its status line out of band.
    const p = openPage(deps, request, reply);
    const id = p.params.id;
    const m = await p.must('GET', '/messages/:id', { params: { id } });
    return reply
      .type('text/html; charset=utf-8')
      .send(html`${messageSections(p.ui, id, m)}${liveStatus('message-status', statusLine(m), true)}`.text);
  });

  app.post<PathOf<'id'>>(`${base}/:id/redispatch`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const id = p.params.id;
    const done = await p.call('POST', '/messages/:id/redispatch', {
      params: { id },
      body: {},
    });
    if (done.ok) return p.redirect(`${base}/${id}?done=redispatch`);
    return detailPage(p, {
      status: done.error.status,
      notices: [{ kind: 'error', text: refusalInWords(done.error) }],
    });
  });

  app.post<PathOf<'id' | 'delivery_id'>>(
    `${base}/:id/deliveries/:delivery_id/redeliver`,
    async (request, reply) => {
      const p = openPage(deps, request, reply);
      const params = p.params;
      const done = await p.call('POST', '/messages/:id/deliveries/:delivery_id/redeliver', {
        params,
        body: {},
      });
      if (done.ok) return p.redirect(`${base}/${params.id}?done=redeliver`);
      return detailPage(p, {
        status: done.error.status,
        notices: [{ kind: 'error', text: refusalInWords(done.error) }],
      });
    },
  );

  app.get<PathOf<'id'>>(`${base}/:id/payload`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const id = p.params.id;
    const outcome = await p.call('GET', '/messages/:id/payload', {
      params: { id },
      query: p.query,
    });
    if (!outcome.ok) throw outcome.error;
    return reply;
  });

  app.post(`${base}/send`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const sent = await p.call('POST', '/messages', {});
    if (sent.ok) return p.redirect(`${base}/${sent.data.id}?done=sent`);
    // What was sent comes back in the form, so a refusal costs only the fix (and the file again).
    const state = refusedState(sent.error, submittedFields(request));
    return listPage(
      p,
      state,
      sent.error.code === 'INVALID_INPUT' ? { status: sent.error.status } : refused(sent.error),
    );
  });
}

/** The 409 answers of docs/api/lifecycles.md#delivery-state said as a sentence, with the API's code beside it. */
function refusalInWords(error: ApiError): Html {
  const d = (error.details ?? {}) as { state?: string; stage?: string; allowed?: string[] };
  if (error.code === 'NOT_REDELIVERABLE') {
    return html`This delivery is <strong>${d.state ?? 'busy'}</strong>; it can be delivered again only when it
      is ${(d.allowed ?? []).join(', ')}. (${error.status} ${error.code})`;
  }
  if (error.code === 'NOT_REDISPATCHABLE') {
    return html`This message is still <strong>${d.stage ?? 'accepted'}</strong> by its source; it can be
      dispatched again only when it is ${(d.allowed ?? []).join(', ')}. (${error.status} ${error.code})`;
  }
  return refusal(error);
}
