/**
 * Administration pages: audit log (filters, verify), settings (with the storage test),
 * API tokens (the new token shown once, with a copy button) and users.
 */
import type { FastifyInstance } from 'fastify';
import { freshEm } from '../../context.js';
import { listUsers } from '../../resources/users/service.js';
import { html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import { csrfInput, emptyForm, field, formErrors, formToBody, type FormState } from '../form.js';
import { kindOf, shapeOf, specFromSchema } from '../form.js';
import { badge, facts, listWithFilters, openPage, recordForm, section } from '../components/index.js';
import type { AnswerOf, ListRow } from '../components/index.js';
import { refused, refusedState, table, when } from '../components/index.js';
import type { Answer, PageRequest, PathOf, UiDeps } from '../components/index.js';

type AuditEvent = ListRow<'/audit', 'events'>;
type Token = ListRow<'/api-tokens', 'api_tokens'>;
type StorageInUse = AnswerOf<'GET', '/settings'>['storage_in_use'];

const auditColumns = [
  { label: 'Time', cell: (r: AuditEvent) => when(r.at) },
  { label: 'Actor', cell: (r: AuditEvent) => r.actor },
  { label: 'Action', cell: (r: AuditEvent) => r.action },
  { label: 'Kind', cell: (r: AuditEvent) => r.kind },
  {
    label: 'Record',
    cell: (r: AuditEvent) => `${r.record_name} (${r.record_id})${r.record_gone ? ', gone' : ''}`,
  },
  {
    label: 'Changes',
    cell: (r: AuditEvent) =>
      html`${r.changes.map((c) => html`<div>${c.field}: ${c.secret ? 'secret changed' : html`${JSON.stringify(c.old ?? null)} → ${JSON.stringify(c.new ?? null)}`}</div>`)}`,
  },
];

const auditFilters = [
  { name: 'kind', label: 'Kind', hint: 'e.g. partner, api-token' },
  {
    name: 'action',
    label: 'Action',
    kind: 'select' as const,
    options: [{ value: '', label: 'any' }, 'create', 'update', 'delete', 'revoke'],
  },
  { name: 'actor', label: 'Actor' },
  { name: 'record_id', label: 'Record id' },
  { name: 'record_name', label: 'Record name' },
  { name: 'from', label: 'From', hint: 'RFC 3339 time or a date' },
  { name: 'to', label: 'To', hint: 'RFC 3339 time or a date (whole day)' },
];

function registerAudit(app: FastifyInstance, deps: UiDeps): void {
  const base = `${uiPrefix}/audit`;
  const page = async (p: PageRequest, verify?: Notice) => {
    const list = await listWithFilters(p, {
      api: '/audit',
      path: base,
      listKey: 'events',
      caption: 'Audit events',
      columns: auditColumns,
      empty: 'No events match.',
      filterLabel: 'Filter the audit log',
      filters: auditFilters,
    });
    const body = html` <form method="post" action="${base}/verify" class="actions">
        ${csrfInput(p.ui.csrf)}<button type="submit">Verify the audit chain</button>
      </form>
      ${list.body}`;
    return p.send({ title: 'Audit log', body }, { status: list.status, notices: verify ? [verify] : [] });
  };
  app.get(base, (request, reply) => page(openPage(deps, request, reply)));
  app.post(`${base}/verify`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const v = await p.call('POST', '/audit/verify', { body: {} });
    if (!v.ok) return page(p, refused(v.error).notices![0]);
    const r = v.data;
    const text = r.ok
      ? html`<span id="verify-result"
          >The audit log verifies: ${r.events_checked} events checked, ${r.chained} chained, ${r.unchained}
          unchained.</span
        >`
      : html`<span id="verify-result"
          >The audit log does NOT verify: first broken event ${String(r.first_broken_id)}
          (${String(r.reason)}).</span
        >`;
    return page(p, { kind: r.ok ? 'ok' : 'error', text });
  });
}

/** The storage a process runs with, as an operator says it: "local directory ./payloads". */
function storageInWords(storage: StorageInUse | undefined): string {
  if (!storage) return 'unknown';
  if (storage.storage_backend === 'local') return `local directory ${storage.storage_local_directory}`;
  const endpoint = storage.storage_s3_endpoint ? ` at ${storage.storage_s3_endpoint}` : '';
  return `S3 bucket ${storage.storage_s3_bucket} in ${storage.storage_s3_region}${endpoint}`;
}

function registerSettings(app: FastifyInstance, deps: UiDeps): void {
  const base = `${uiPrefix}/settings`;
  const schema = deps.api.bodySchema('PUT', '/settings');
  const hasTest = deps.api.has('POST', '/settings/storage/test');
  const page = async (p: PageRequest, state: FormState, answer: Answer = {}) => {
    const s = await p.must('GET', '/settings');
    // The form is drawn from the PUT schema's fields, so it reads the answer by their names.
    const values: Record<string, unknown> = s;
    const shape = shapeOf(schema);
    const fields = Object.keys(shape)
      .filter((n) => kindOf(shape[n]) !== 'unknown')
      .map((n) => ({ ...specFromSchema(n, shape[n]!), value: values[n] }));
    const body = html` ${s.restart_needed ? html`<div class="alert alert-info" role="status">The saved storage differs from the storage this process runs with; it takes effect after a restart.</div>` : ''}
    ${facts([
      ['Storage in use', storageInWords(s.storage_in_use)],
      ['Updated', when(s.updated_at)],
    ])}
    ${recordForm({ action: base, csrf: p.ui.csrf, fields, state, submit: 'Save settings' })}
    ${
      hasTest
        ? html`<form method="post" action="${base}/storage-test" class="actions">
            ${csrfInput(p.ui.csrf)}<button type="submit">Test the saved storage</button>
          </form>`
        : html`<p class="hint">The storage test arrives with the storage issue.</p>`
    }`;
    const saved: Notice[] = p.query.saved ? [{ kind: 'ok', text: 'Saved.' }] : [];
    return p.send({ title: 'Settings', body, notices: saved }, answer);
  };
  app.get(base, (request, reply) => page(openPage(deps, request, reply), emptyForm));
  app.post(base, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const fields = p.fields;
    const saved = await p.call('PUT', '/settings', { body: formToBody(schema, fields) });
    if (saved.ok) return p.redirect(`${base}?saved=1`);
    return page(p, refusedState(saved.error, fields), { status: saved.error.status });
  });
  app.post(`${base}/storage-test`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    if (!hasTest) return page(p, emptyForm);
    const r = await p.call('POST', '/settings/storage/test', { body: {} });
    const notice: Notice = !r.ok
      ? refused(r.error).notices![0]!
      : r.data.ok
        ? { kind: 'ok', text: `Storage test passed in ${r.data.elapsed_ms} ms.` }
        : { kind: 'error', text: `Storage test failed at ${String(r.data.step)}: ${String(r.data.problem)}` };
    return page(p, emptyForm, { notices: [notice] });
  });
}

function tokenColumns(base: string, csrf: string) {
  return [
    { label: 'Label', cell: (r: Token) => r.label },
    { label: 'Account', cell: (r: Token) => r.service_account },
    { label: 'Id', cell: (r: Token) => html`<code>${r.public_id}</code>` },
    { label: 'State', cell: (r: Token) => badge(r.state) },
    { label: 'Expires', cell: (r: Token) => when(r.expires_at) },
    { label: 'Last used', cell: (r: Token) => when(r.last_used_at) },
    {
      label: 'Action',
      cell: (r: Token) =>
        r.state === 'active'
          ? html`<form method="post" action="${base}/${r.id}/revoke" class="inline">
              ${csrfInput(csrf)}<button
                type="submit"
                class="small danger"
                aria-label="Revoke token ${r.label}"
              >
                Revoke
              </button>
            </form>`
          : '—',
    },
  ];
}

function registerTokens(app: FastifyInstance, deps: UiDeps): void {
  const base = `${uiPrefix}/api-tokens`;
  const schema = deps.api.bodySchema('POST', '/api-tokens');
  const page = async (p: PageRequest, state: FormState, answer: Answer = {}) => {
    const list = await listWithFilters(p, {
      api: '/api-tokens',
      path: base,
      listKey: 'api_tokens',
      caption: 'API tokens',
      columns: tokenColumns(base, p.ui.csrf),
      empty: 'No tokens yet.',
    });
    if (!list.data) return p.send({ title: 'API tokens', body: list.body }, { status: list.status });
    const accounts = await p.must('GET', '/service-accounts', { query: { limit: '500' } });
    const local = accounts.service_accounts.filter((a) => a.kind === 'local').map((a) => a.name);
    const body = html` ${list.body}
    ${section(
      'new',
      'New token',
      html`<form method="post" action="${base}" class="record-form" novalidate>
        ${csrfInput(p.ui.csrf)} ${formErrors(state, ['service_account', 'label', 'expires_in_days'])}
        ${field({ name: 'service_account', label: 'Service account', kind: local.length > 0 ? 'select' : 'text', options: local, hint: 'A local service account' }, state)}
        ${field({ name: 'label', label: 'Label', hint: '1 to 64 characters' }, state)}
        ${field({ name: 'expires_in_days', label: 'Expires in days', kind: 'number', hint: '1 to 365; default 90' }, state)}
        <button type="submit">Create token</button>
      </form>`,
    )}`;
    return p.send({ title: 'API tokens', body }, answer);
  };
  app.get(base, (request, reply) => page(openPage(deps, request, reply), emptyForm));
  app.post(base, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const fields = p.fields;
    const made = await p.call('POST', '/api-tokens', { body: formToBody(schema, fields) });
    if (!made.ok)
      return page(
        p,
        refusedState(made.error, fields),
        made.error.code === 'INVALID_INPUT' ? { status: made.error.status } : refused(made.error),
      );
    // Shown once: this answer is never cached and the value is not kept anywhere.
    return p.send(
      {
        title: 'New API token',
        notices: [{ kind: 'info', text: 'Copy the token now: it is shown only this once.' }],
        body: html`<p id="new-token" class="token-once">${made.data.token}</p>
          <p><button type="button" data-copy="new-token">Copy token</button></p>
          ${facts([
            ['Label', made.data.label],
            ['Account', made.data.service_account],
            ['Expires', when(made.data.expires_at as string)],
          ])}
          <p><a href="${base}">All tokens</a></p>`,
      },
      { status: 201 },
    );
  });
  app.post<PathOf<'id'>>(`${base}/:id/revoke`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const done = await p.call('DELETE', '/api-tokens/:id', { params: { id: p.params.id } });
    if (done.ok) return p.redirect(base);
    return page(p, emptyForm, refused(done.error));
  });
}

function registerUsers(app: FastifyInstance, deps: UiDeps): void {
  app.get(`${uiPrefix}/users`, async (request, reply) => {
    const p = openPage(deps, request, reply);
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
    return p.send({ title: 'Users', body });
  });
}

export function registerAdminPages(app: FastifyInstance, deps: UiDeps): void {
  if (deps.api.has('GET', '/audit')) registerAudit(app, deps);
  if (deps.api.has('GET', '/settings')) registerSettings(app, deps);
  if (deps.api.has('GET', '/api-tokens')) registerTokens(app, deps);
  registerUsers(app, deps);
}
