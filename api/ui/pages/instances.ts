/**
 * Plugin instances: their state with start/stop/restart (the 403/409/500 answers in words),
 * and configuration forms per type generated from the type's declaration (actors/<type>/
 * config.ts), the same declaration that makes the API's schemas and OpenAPI document.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isPluginType, pluginTypeDefinitions, pluginTypes, type PluginType } from '../../../actors/index.js';
import { pluginConfigSchemas } from '../../schemas/plugin-config.js';
import type { ApiError } from '../../errors.js';
import { html, type Html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import {
  csrfInput,
  emptyForm,
  field,
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
  mustCall,
  refusal,
  sendPage,
  seeOther,
  table,
  uiContext,
  when,
  type UiDeps,
} from './common.js';
import { isSftpType, registerSftpToolRoutes, sftpTools } from './sftp-tools.js';

type Row = Record<string, unknown>;
const base = `${uiPrefix}/instances`;

/** The form fields of a type, in declaration order; write-only ones show set / not set. */
function configFields(type: PluginType, mode: 'create' | 'update', record?: Row) {
  const def = pluginTypeDefinitions[type];
  const schema = pluginConfigSchemas[type][mode];
  const shape = shapeOf(schema);
  const secrets = Object.keys(def.secretFields);
  const set = (record?.secrets_set as string[] | undefined) ?? [];
  return Object.keys(shape)
    .filter((n) => !['never', 'unknown'].includes(kindOf(shape[n])) && !(mode === 'update' && n === 'name'))
    .map((n) => {
      const spec = specFromSchema(n, shape[n]!);
      if (secrets.includes(n)) {
        spec.secretSet = set.includes(n);
        if (spec.kind !== 'json') spec.kind = 'password';
        return spec;
      }
      const value = record
        ? record[n]
        : n in def.defaults
          ? def.defaults[n]
          : n === 'enabled'
            ? true
            : undefined;
      return { ...spec, value };
    });
}

/** What a service action's refusal means, in words (spec 3.4), with the API's answer. */
function actionRefusal(error: ApiError, action: string): Html {
  const d = (error.details ?? {}) as { status?: string; actions?: string[] };
  if (error.status === 403)
    return html`The API server cannot be ${action}ed from its own pages. (${error.status} ${error.code})`;
  if (error.status === 409) {
    return html`Cannot ${action} now: the instance is
      <strong>${d.status ?? 'busy'}</strong
      >${d.actions ? html`; possible now: ${d.actions.join(', ') || 'nothing, wait for it to settle'}` : ''}.
      (${error.status} ${error.code}: ${error.message})`;
  }
  if (error.status === 500)
    return html`The instance failed to start: ${error.message} (${error.status} ${error.code})`;
  return refusal(error);
}

export function registerInstancePages(app: FastifyInstance, deps: UiDeps): void {
  const list = async (request: FastifyRequest, reply: FastifyReply, status = 200, notices: Notice[] = []) => {
    const ui = uiContext(deps, request, reply);
    const services = await mustCall<Row[]>(deps, ui, request, reply, 'GET', '/services');
    const done = (request.query as { done?: string }).done;
    const body = html` ${table(
        'Plugin instances',
        [
          {
            label: 'Instance',
            cell: (r: Row) =>
              r.controllable
                ? html`<a href="${base}/${String(r.type)}/${String(r.name)}"
                    >${String(r.type)}/${String(r.name)}</a
                  >`
                : `${String(r.type)}/${String(r.name)}`,
          },
          {
            label: 'Status',
            cell: (r) =>
              html`${badge(String(r.status))}${r.error ? html` <span class="text">${String(r.error)}</span>` : ''}`,
          },
          { label: 'Since', cell: (r) => when(r.state_since as string) },
          {
            label: 'Actions',
            cell: (r) =>
              (r.actions as string[]).length === 0
                ? '—'
                : html`${(r.actions as string[]).map(
                    (a) =>
                      html`<form
                        method="post"
                        action="${base}/${String(r.type)}/${String(r.name)}/${a}"
                        class="inline"
                      >
                        ${csrfInput(ui.csrf)}<button
                          type="submit"
                          class="small"
                          aria-label="${a} ${String(r.type)}/${String(r.name)}"
                        >
                          ${a}
                        </button>
                      </form> `,
                  )}`,
          },
        ],
        services,
      )}
      <section aria-labelledby="new-heading">
        <h2 id="new-heading">New instance</h2>
        <ul>
          ${pluginTypes.map((t) => html`<li><a href="${base}/new/${t}">${t}</a>: ${pluginTypeDefinitions[t].summary}</li>`)}
        </ul>
      </section>`;
    return sendPage(
      reply,
      ui,
      {
        title: 'Plugin instances',
        body,
        notices: [...(done ? [{ kind: 'ok' as const, text: `Done: ${done}.` }] : []), ...notices],
      },
      status,
    );
  };
  app.get(base, (request, reply) => list(request, reply));

  app.post(`${base}/:type/:name/:action`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const params = request.params as { type: string; name: string; action: string };
    const done = await callApi<Row>(deps, ui, request, reply, 'POST', '/services/:type/:name/:action', {
      params,
      body: {},
    });
    if (done.ok)
      return seeOther(
        reply,
        `${base}?done=${encodeURIComponent(`${params.action} ${params.type}/${params.name}, now ${String(done.data.status)}`)}`,
      );
    return list(request, reply, done.error.status, [
      { kind: 'error', text: actionRefusal(done.error, params.action) },
    ]);
  });

  const form = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FormState,
    status = 200,
    notices: Notice[] = [],
    /** An SFTP instance's last connection check, shown under its tools. */
    checked?: Row,
  ) => {
    const ui = uiContext(deps, request, reply);
    const params = request.params as { type?: string; name?: string };
    // The SFTP tools' routes name the type in their path, not as a parameter.
    const type = params.type ?? request.url.split('/')[3] ?? '';
    const name = params.name;
    if (!isPluginType(type))
      return mustCall(deps, ui, request, reply, 'GET', '/plugins/configs/:type/:name', {
        params: { type, name: name ?? 'x' },
      });
    const record = name
      ? await mustCall<Row>(deps, ui, request, reply, 'GET', '/plugins/configs/:type/:name', {
          params: { type, name },
        })
      : undefined;
    const fields = configFields(type, record ? 'update' : 'create', record);
    const action = record ? `${base}/${type}/${name}` : `${base}/new/${type}`;
    const saved = (request.query as { saved?: string }).saved;
    const body = html`<p><a href="${base}">All instances</a></p>
      <p class="intro">
        ${pluginTypeDefinitions[type].summary}. Changes take effect when the instance restarts.
      </p>
      <form method="post" action="${action}" class="record-form" novalidate>
        ${csrfInput(ui.csrf)}
        ${formErrors(
          state,
          fields.map((f) => f.name),
        )}
        ${fields.map((f) => field(f, state))}
        <button type="submit">${record ? 'Save' : 'Create'}</button>
      </form>
      ${
        record
          ? html`<form method="post" action="${action}/delete" class="danger-zone">
              ${csrfInput(ui.csrf)}<button type="submit" class="danger">Delete instance</button>
            </form>`
          : ''
      }
      ${record && isSftpType(type) ? sftpTools(ui, action, checked) : ''}`;
    return sendPage(
      reply,
      ui,
      {
        title: record ? `${type}/${name}` : `New ${type}`,
        body,
        notices: [...(saved ? [{ kind: 'ok' as const, text: 'Saved.' }] : []), ...notices],
      },
      status,
    );
  };

  const secretNames = (type: string) =>
    isPluginType(type) ? Object.keys(pluginTypeDefinitions[type].secretFields) : [];

  // Before the service actions' `/:type/:name/:action`: these paths name their type.
  registerSftpToolRoutes(app, deps, base, (request, reply, status, notices, checked) =>
    form(request, reply, emptyForm, status, notices, checked),
  );
  app.get(`${base}/new/:type`, (request, reply) => form(request, reply, emptyForm));
  app.post(`${base}/new/:type`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { type } = request.params as { type: string };
    const fields = bodyFields(request);
    const schema = isPluginType(type) ? pluginConfigSchemas[type].create : undefined;
    const made = await callApi<Row>(deps, ui, request, reply, 'POST', '/plugins/configs', {
      query: { type },
      body: formToBody(schema, fields, secretNames(type)),
    });
    if (made.ok) return seeOther(reply, `${base}/${type}/${String(made.data.name)}?saved=1`);
    return form(
      request,
      reply,
      { values: fields, errors: made.error.details ?? {} },
      made.error.status,
      made.error.code === 'INVALID_INPUT' ? [] : [{ kind: 'error', text: refusal(made.error) }],
    );
  });
  app.get(`${base}/:type/:name`, (request, reply) => form(request, reply, emptyForm));
  app.post(`${base}/:type/:name`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const params = request.params as { type: string; name: string };
    const fields = bodyFields(request);
    const schema = isPluginType(params.type) ? pluginConfigSchemas[params.type].update : undefined;
    const saved = await callApi(deps, ui, request, reply, 'PUT', '/plugins/configs/:type/:name', {
      params,
      body: formToBody(schema, fields, secretNames(params.type)),
    });
    if (saved.ok) return seeOther(reply, `${base}/${params.type}/${params.name}?saved=1`);
    return form(
      request,
      reply,
      { values: fields, errors: saved.error.details ?? {} },
      saved.error.status,
      saved.error.code === 'INVALID_INPUT' ? [] : [{ kind: 'error', text: refusal(saved.error) }],
    );
  });
  app.post(`${base}/:type/:name/delete`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const params = request.params as { type: string; name: string };
    const removed = await callApi(deps, ui, request, reply, 'DELETE', '/plugins/configs/:type/:name', {
      params,
    });
    if (removed.ok) return seeOther(reply, base);
    return form(request, reply, emptyForm, removed.error.status, [
      { kind: 'error', text: refusal(removed.error) },
    ]);
  });
}
