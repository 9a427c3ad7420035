/**
 * Administration pages: audit log (filters, verify), settings (with the storage test),
 * API tokens (the new token shown once, with a copy button) and users.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { freshEm } from '../../context.js';
import { listUsers } from '../../resources/users/service.js';
import { html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import {
  csrfInput,
  emptyForm,
  field,
  fieldSections,
  formErrors,
  formToBody,
  kindOf,
  shapeOf,
  specFromSchema,
  type FormState,
} from '../form.js';
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

function registerAudit(app: FastifyInstance, deps: UiDeps): void {
  const base = `${uiPrefix}/audit`;
  const page = async (request: FastifyRequest, reply: FastifyReply, verify?: Notice) => {
    const ui = uiContext(deps, request, reply);
    const query = queryOf(request);
    const listed = await callApi<Row>(deps, ui, request, reply, 'GET', '/audit', { query });
    const state = { values: query, errors: listed.ok ? {} : (listed.error.details ?? {}) };
    const body = html` <form method="post" action="${base}/verify" class="actions">
        ${csrfInput(ui.csrf)}<button type="submit">Verify the audit chain</button>
      </form>
      <form class="filters" method="get" action="${base}" role="search" aria-label="Filter the audit log">
        ${field({ name: 'kind', label: 'Kind', hint: 'e.g. partner, api-token' }, state)}
        ${field({ name: 'action', label: 'Action', kind: 'select', options: [{ value: '', label: 'any' }, 'create', 'update', 'delete', 'revoke'] }, state)}
        ${field({ name: 'actor', label: 'Actor' }, state)}
        ${field({ name: 'record_id', label: 'Record id' }, state)}
        ${field({ name: 'record_name', label: 'Record name' }, state)}
        ${field({ name: 'from', label: 'From', hint: 'RFC 3339 time or a date' }, state)}
        ${field({ name: 'to', label: 'To', hint: 'RFC 3339 time or a date (whole day)' }, state)}
        <button type="submit">Filter</button>
      </form>
      ${
        listed.ok
          ? html`${table(
              'Audit events',
              [
                { label: 'Time', cell: (r: Row) => when(r.at as string) },
                { label: 'Actor', cell: (r) => String(r.actor) },
                { label: 'Action', cell: (r) => String(r.action) },
                { label: 'Kind', cell: (r) => String(r.kind) },
                {
                  label: 'Record',
                  cell: (r) =>
                    `${String(r.record_name)} (${String(r.record_id)})${r.record_gone ? ', gone' : ''}`,
                },
                {
                  label: 'Changes',
                  cell: (r) =>
                    html`${(r.changes as Row[]).map((c) => html`<div>${String(c.field)}: ${c.secret ? 'secret changed' : html`${JSON.stringify(c.old ?? null)} → ${JSON.stringify(c.new ?? null)}`}</div>`)}`,
                },
              ],
              listed.data.events as Row[],
              'No events match.',
            )}${pager(base, query, listed.data as never)}`
          : html`<div class="alert alert-error" role="alert">${refusal(listed.error)}</div>`
      }`;
    return sendPage(
      reply,
      ui,
      { title: 'Audit log', body, notices: verify ? [verify] : [] },
      listed.ok ? 200 : listed.error.status,
    );
  };
  app.get(base, (request, reply) => page(request, reply));
  app.post(`${base}/verify`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const v = await callApi<Row>(deps, ui, request, reply, 'POST', '/audit/verify', { body: {} });
    if (!v.ok) return page(request, reply, { kind: 'error', text: refusal(v.error) });
    const r = v.data;
    const text = r.ok
      ? html`<span id="verify-result"
          >The audit log verifies: ${String(r.events_checked)} events checked, ${String(r.chained)} chained,
          ${String(r.unchained)} unchained.</span
        >`
      : html`<span id="verify-result"
          >The audit log does NOT verify: first broken event ${String(r.first_broken_id)}
          (${String(r.reason)}).</span
        >`;
    return page(request, reply, { kind: r.ok ? 'ok' : 'error', text });
  });
}

/** The storage a process runs with, as an operator says it: "local directory ./payloads". */
function storageInWords(storage: Row | undefined): string {
  if (!storage) return 'unknown';
  if (storage.storage_backend === 'local')
    return `local directory ${String(storage.storage_local_directory)}`;
  const endpoint = storage.storage_s3_endpoint ? ` at ${String(storage.storage_s3_endpoint)}` : '';
  return `S3 bucket ${String(storage.storage_s3_bucket)} in ${String(storage.storage_s3_region)}${endpoint}`;
}

function registerSettings(app: FastifyInstance, deps: UiDeps): void {
  const base = `${uiPrefix}/settings`;
  const schema = deps.api.bodySchema('PUT', '/settings');
  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FormState,
    status = 200,
    notices: Notice[] = [],
  ) => {
    const ui = uiContext(deps, request, reply);
    const s = await mustCall<Row>(deps, ui, request, reply, 'GET', '/settings');
    const shape = shapeOf(schema);
    const fields = Object.keys(shape)
      .filter((n) => kindOf(shape[n]) !== 'unknown')
      .map((n) => ({ ...specFromSchema(n, shape[n]!), value: s[n] }));
    const saved = (request.query as { saved?: string }).saved;
    const body = html` ${s.restart_needed ? html`<div class="alert alert-info" role="status">The saved storage differs from the storage this process runs with; it takes effect after a restart.</div>` : ''}
      ${facts([
        ['Storage in use', storageInWords(s.storage_in_use as Row | undefined)],
        ['Updated', when(s.updated_at as string)],
      ])}
      <form method="post" action="${base}" class="record-form" novalidate>
        ${csrfInput(ui.csrf)}
        ${formErrors(
          state,
          fields.map((f) => f.name),
        )}
        ${fieldSections(fields, state)}
        <button type="submit">Save settings</button>
      </form>
      ${
        deps.api.has('POST', '/settings/storage/test')
          ? html`<form method="post" action="${base}/storage-test" class="actions">
              ${csrfInput(ui.csrf)}<button type="submit">Test the saved storage</button>
            </form>`
          : html`<p class="hint">The storage test arrives with the storage issue.</p>`
      }`;
    return sendPage(
      reply,
      ui,
      {
        title: 'Settings',
        body,
        notices: [...(saved ? [{ kind: 'ok' as const, text: 'Saved.' }] : []), ...notices],
      },
      status,
    );
  };
  app.get(base, (request, reply) => page(request, reply, emptyForm));
  app.post(base, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const fields = bodyFields(request);
    const saved = await callApi(deps, ui, request, reply, 'PUT', '/settings', {
      body: formToBody(schema, fields),
    });
    if (saved.ok) return seeOther(reply, `${base}?saved=1`);
    return page(request, reply, { values: fields, errors: saved.error.details ?? {} }, saved.error.status);
  });
  app.post(`${base}/storage-test`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    if (!deps.api.has('POST', '/settings/storage/test')) return page(request, reply, emptyForm);
    const r = await callApi<Row>(deps, ui, request, reply, 'POST', '/settings/storage/test', { body: {} });
    const notice: Notice = !r.ok
      ? { kind: 'error', text: refusal(r.error) }
      : r.data.ok
        ? { kind: 'ok', text: `Storage test passed in ${String(r.data.elapsed_ms)} ms.` }
        : { kind: 'error', text: `Storage test failed at ${String(r.data.step)}: ${String(r.data.problem)}` };
    return page(request, reply, emptyForm, 200, [notice]);
  });
}

function registerTokens(app: FastifyInstance, deps: UiDeps): void {
  const base = `${uiPrefix}/api-tokens`;
  const schema = deps.api.bodySchema('POST', '/api-tokens');
  const page = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FormState,
    status = 200,
    notices: Notice[] = [],
  ) => {
    const ui = uiContext(deps, request, reply);
    const query = queryOf(request);
    const listed = await mustCall<Row>(deps, ui, request, reply, 'GET', '/api-tokens', { query });
    const accounts = await mustCall<Row>(deps, ui, request, reply, 'GET', '/service-accounts', {
      query: { limit: '500' },
    });
    const local = (accounts.service_accounts as Row[])
      .filter((a) => a.kind === 'local')
      .map((a) => String(a.name));
    const body = html` ${table(
        'API tokens',
        [
          { label: 'Label', cell: (r: Row) => String(r.label) },
          { label: 'Account', cell: (r) => String(r.service_account) },
          { label: 'Id', cell: (r) => html`<code>${String(r.public_id)}</code>` },
          { label: 'State', cell: (r) => badge(String(r.state)) },
          { label: 'Expires', cell: (r) => when(r.expires_at as string | null) },
          { label: 'Last used', cell: (r) => when(r.last_used_at as string | null) },
          {
            label: 'Action',
            cell: (r) =>
              r.state === 'active'
                ? html`<form method="post" action="${base}/${String(r.id)}/revoke" class="inline">
                    ${csrfInput(ui.csrf)}<button
                      type="submit"
                      class="small danger"
                      aria-label="Revoke token ${String(r.label)}"
                    >
                      Revoke
                    </button>
                  </form>`
                : '—',
          },
        ],
        listed.api_tokens as Row[],
        'No tokens yet.',
      )}
      ${pager(base, query, listed as never)}
      <section aria-labelledby="new-heading">
        <h2 id="new-heading">New token</h2>
        <form method="post" action="${base}" class="record-form" novalidate>
          ${csrfInput(ui.csrf)} ${formErrors(state, ['service_account', 'label', 'expires_in_days'])}
          ${field({ name: 'service_account', label: 'Service account', kind: local.length > 0 ? 'select' : 'text', options: local, hint: 'A local service account' }, state)}
          ${field({ name: 'label', label: 'Label', hint: '1 to 64 characters' }, state)}
          ${field({ name: 'expires_in_days', label: 'Expires in days', kind: 'number', hint: '1 to 365; default 90' }, state)}
          <button type="submit">Create token</button>
        </form>
      </section>`;
    return sendPage(reply, ui, { title: 'API tokens', body, notices }, status);
  };
  app.get(base, (request, reply) => page(request, reply, emptyForm));
  app.post(base, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const fields = bodyFields(request);
    const made = await callApi<Row>(deps, ui, request, reply, 'POST', '/api-tokens', {
      body: formToBody(schema, fields),
    });
    if (!made.ok)
      return page(
        request,
        reply,
        { values: fields, errors: made.error.details ?? {} },
        made.error.status,
        made.error.code === 'INVALID_INPUT' ? [] : [{ kind: 'error', text: refusal(made.error) }],
      );
    // Shown once: this answer is never cached and the value is not kept anywhere.
    return sendPage(
      reply,
      ui,
      {
        title: 'New API token',
        notices: [{ kind: 'info', text: 'Copy the token now: it is shown only this once.' }],
        body: html`<p id="new-token" class="token-once">${String(made.data.token)}</p>
          <p><button type="button" data-copy="new-token">Copy token</button></p>
          ${facts([
            ['Label', String(made.data.label)],
            ['Account', String(made.data.service_account)],
            ['Expires', when(made.data.expires_at as string)],
          ])}
          <p><a href="${base}">All tokens</a></p>`,
      },
      201,
    );
  });
  app.post(`${base}/:id/revoke`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params as { id: string };
    const done = await callApi(deps, ui, request, reply, 'DELETE', '/api-tokens/:id', { params: { id } });
    if (done.ok) return seeOther(reply, base);
    return page(request, reply, emptyForm, done.error.status, [{ kind: 'error', text: refusal(done.error) }]);
  });
}

function registerUsers(app: FastifyInstance, deps: UiDeps): void {
  app.get(`${uiPrefix}/users`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const users = await listUsers(freshEm(deps.ctx));
    const body = html`<p class="intro">
        People who sign in to the web UI. Users are added, enabled, disabled and removed with
        <code>pier users</code> on the command line; sign-in arrives with the identity issue.
      </p>
      ${table(
        'Users',
        [
          { label: 'Name', cell: (u: (typeof users)[number]) => u.name },
          { label: 'Identity', cell: (u) => (u.oidc_issuer ? `${u.oidc_subject} at ${u.oidc_issuer}` : '—') },
          { label: 'Enabled', cell: (u) => badge(u.enabled ? 'enabled' : 'disabled') },
          { label: 'Created', cell: (u) => when(u.created_at.toISOString()) },
        ],
        users,
        'No users yet.',
      )}`;
    return sendPage(reply, ui, { title: 'Users', body });
  });
}

export function registerAdminPages(app: FastifyInstance, deps: UiDeps): void {
  if (deps.api.has('GET', '/audit')) registerAudit(app, deps);
  if (deps.api.has('GET', '/settings')) registerSettings(app, deps);
  if (deps.api.has('GET', '/api-tokens')) registerTokens(app, deps);
  registerUsers(app, deps);
}
