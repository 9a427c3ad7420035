/**
 * Plugin instances: their state with start/stop/restart (the 403/409/500 answers in words),
 * and configuration forms per type generated from the type's declaration (actors/<type>/
 * config.ts), the same declaration that makes the API's schemas and OpenAPI document.
 */
import type { FastifyInstance } from 'fastify';
import { isPluginType, pluginTypeDefinitions, pluginTypes, type PluginType } from '../../../actors/index.js';
import { pluginConfigSchemas } from '../../schemas/plugin-config.js';
import type { ApiError } from '../../errors.js';
import { html, type Html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import { csrfInput, emptyForm, formToBody, kindOf, shapeOf, specFromSchema, storedValue } from '../form.js';
import type { FieldSpec, FormState } from '../form.js';
import { actionButton, backLink, badge, openPage, recordForm, refusal } from '../components/index.js';
import { refused } from '../components/index.js';
import {
  refusedForm,
  table,
  when,
  type Answer,
  type PageRequest,
  type PathOf,
  type UiDeps,
} from '../components/index.js';
import type { AnswerOf } from '../components/index.js';
import { notifierTypes } from './notifier-notice.js';
import { isSftpType, registerSftpToolRoutes, sftpTools, type SftpCheck } from './sftp-tools.js';

import { asPicker, pickerOf, type Choices } from '../pickers.js';
import { refusedForm as keptForm } from './crud.js';

type Service = AnswerOf<'GET', '/services'>[number];
type ConfigRecord = AnswerOf<'GET', '/plugins/configs/:type/:name'>;
/** The instance a page is about: its type and, once it exists, its name. */
type Instance = { type: string; name?: string };
const base = `${uiPrefix}/instances`;

/** The reference fields of a type's form as pickers: certificates, and a poller's parties. */
function withPickers(type: PluginType, fields: FieldSpec[], choices: Choices, state: FormState): FieldSpec[] {
  return fields.map((f) => {
    const kind =
      type === 'file-poller' && (f.name === 'from' || f.name === 'to')
        ? 'party-or-empty'
        : pickerOf(f.name, 'instance');
    return kind ? asPicker(f, kind, choices, state.values[f.name] ?? f.value) : f;
  });
}

/** What the save did to a running instance, in words: a failed start is no "Saved.". */
function savedNotice(
  saved: string,
  service: Service | undefined,
  type: string,
  name: string,
  csrf: string,
): Notice {
  if (service?.status === 'error')
    return {
      kind: 'error',
      text: html`Saved, but the instance failed to start: ${service.error ?? 'no reason given'}. Fix the
      settings below and save again, or see the instance list.`,
    };
  if (saved === 'restart')
    return {
      kind: 'info',
      text: html`Saved. The instance runs with the previous settings until it restarts.
        <form method="post" action="${base}/${type}/${name}/restart" class="inline">
          ${csrfInput(csrf)}<button type="submit" class="small">Restart now</button>
        </form>`,
    };
  return { kind: 'ok', text: 'Saved.' };
}

/** The form fields of a type, in declaration order; write-only ones show set / not set. */
function configFields(type: PluginType, mode: 'create' | 'update', record?: ConfigRecord) {
  const def = pluginTypeDefinitions[type];
  const schema = pluginConfigSchemas[type][mode];
  const shape = shapeOf(schema);
  const secrets = Object.keys(def.secretFields);
  const set = record?.secrets_set ?? [];
  return Object.keys(shape)
    .filter((n) => !['never', 'unknown'].includes(kindOf(shape[n])) && !(mode === 'update' && n === 'name'))
    .map((n) => {
      const spec = specFromSchema(n, shape[n]!);
      if (secrets.includes(n)) {
        spec.secretSet = set.includes(n);
        if (spec.kind !== 'json' && spec.kind !== 'lines') spec.kind = 'password';
        return spec;
      }
      const value = record
        ? storedValue(record, n)
        : n in def.defaults
          ? def.defaults[n]
          : n === 'enabled'
            ? true
            : undefined;
      return { ...spec, value };
    });
}

/** What a service action's refusal means, in words (docs/api/lifecycles.md#service-instance-status), with the API's answer. */
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
  const list = async (p: PageRequest, answer: Answer = {}) => {
    const services = await p.must('GET', '/services');
    const done = p.query.done;
    const body = html` ${table(
        'Plugin instances',
        [
          {
            label: 'Instance',
            cell: (r: Service) =>
              r.controllable
                ? html`<a href="${base}/${r.type}/${r.name}">${r.type}/${r.name}</a>`
                : `${r.type}/${r.name}`,
          },
          {
            label: 'Status',
            cell: (r) =>
              html`${badge(r.status)}${r.error ? html` <span class="text">${r.error}</span>` : ''}`,
          },
          { label: 'Since', cell: (r) => when(r.state_since) },
          {
            label: 'Actions',
            cell: (r) =>
              r.actions.length === 0
                ? '—'
                : html`${r.actions.map(
                    (a) =>
                      html`<form method="post" action="${base}/${r.type}/${r.name}/${a}" class="inline">
                        ${csrfInput(p.ui.csrf)}<button
                          type="submit"
                          class="small"
                          aria-label="${a} ${r.type}/${r.name}"
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
    const notices: Notice[] = done ? [{ kind: 'ok', text: `Done: ${done}.` }] : [];
    return p.send({ title: 'Plugin instances', body, notices }, answer);
  };
  app.get(base, (request, reply) => list(openPage(deps, request, reply)));

  app.post<PathOf<'type' | 'name' | 'action'>>(`${base}/:type/:name/:action`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const params = { type: p.params.type, name: p.params.name, action: p.params.action };
    const done = await p.call('POST', '/services/:type/:name/:action', {
      params,
      body: {},
    });
    if (done.ok)
      return p.redirect(
        `${base}?done=${encodeURIComponent(`${params.action} ${params.type}/${params.name}, now ${done.data.status}`)}`,
      );
    return list(p, {
      // A failed start is the instance's state, said with its reason, not a fault of this page: the
      // API's 500 START_FAILED is the contract's, the page answers 409 as for any refused action.
      status: done.error.code === 'START_FAILED' ? 409 : done.error.status,
      notices: [{ kind: 'error', text: actionRefusal(done.error, params.action) }],
    });
  });

  const form = async (
    p: PageRequest,
    /** The instance of the page: a type and, once it exists, its name. */
    { type, name }: Instance,
    state: FormState,
    answer: Answer = {},
    /** An SFTP instance's last connection check, shown under its tools. */
    checked?: SftpCheck,
  ) => {
    if (!isPluginType(type))
      return p.must('GET', '/plugins/configs/:type/:name', {
        params: { type, name: name ?? 'x' },
      });
    const record = name
      ? await p.must('GET', '/plugins/configs/:type/:name', {
          params: { type, name },
        })
      : undefined;
    const needs = configFields(type, record ? 'update' : 'create', record);
    const choices = await p.choices({
      certificates: needs.some((f) => /_certificate_ids?$/.test(f.name)),
      parties: type === 'file-poller',
    });
    const fields = withPickers(type, needs, choices, state);
    const action = record ? `${base}/${type}/${name}` : `${base}/new/${type}`;
    const saved = p.query.saved;
    const services = record ? await p.call('GET', '/services') : undefined;
    const service = services?.ok ? services.data.find((r) => r.type === type && r.name === name) : undefined;
    const testPath = `/plugins/configs/${type}/:name/test`;
    const body = html`${backLink(base, 'All instances')}
      <p class="intro">
        ${pluginTypeDefinitions[type].summary}. Changes take effect when the instance restarts.
      </p>
      ${
        service
          ? html`<p class="instance-state">
              Status: ${badge(service.status)}${service.error ? html` <span>${service.error}</span>` : ''}
              ${service.actions.map(
                (a) =>
                  html`<form method="post" action="${base}/${type}/${name}/${a}" class="inline">
                    ${csrfInput(p.ui.csrf)}<button type="submit" class="small">${a}</button>
                  </form> `,
              )}
            </p>`
          : ''
      }
      ${recordForm({ action, csrf: p.ui.csrf, fields, state, submit: record ? 'Save' : 'Create' })}
      ${
        record && deps.api.has('POST', testPath)
          ? html`<section aria-labelledby="test-heading">
              <h2 id="test-heading">Send a test</h2>
              <p>
                Sends a test alert through this notifier now, with the saved settings, and shows what
                happened.
              </p>
              <form method="post" action="${action}/test" class="actions">
                ${csrfInput(p.ui.csrf)}<button type="submit">Send a test notification</button>
              </form>
            </section>`
          : ''
      }
      ${record ? actionButton(p.ui.csrf, `${action}/delete`, 'Delete instance', { danger: true }) : ''}
      ${record && isSftpType(type) ? sftpTools(p.ui, action, checked) : ''}`;
    const notices = saved && name ? [savedNotice(saved, service, type, name, p.ui.csrf)] : [];
    return p.send({ title: record ? `${type}/${name}` : `New ${type}`, body, notices }, answer);
  };

  const secretNames = (type: string) =>
    isPluginType(type) ? Object.keys(pluginTypeDefinitions[type].secretFields) : [];

  // Before the service actions' `/:type/:name/:action`: these paths name their type.
  registerSftpToolRoutes(app, deps, base, (p, instance, status, notices, checked) =>
    form(p, instance, emptyForm, { status, notices }, checked),
  );
  app.get<PathOf<'type'>>(`${base}/new/:type`, (request, reply) => {
    const p = openPage(deps, request, reply);
    return form(p, { type: p.params.type }, emptyForm);
  });
  app.post<PathOf<'type'>>(`${base}/new/:type`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const type = p.params.type;
    const fields = deps.kept.restore(p.ui.csrf, p.fields, secretNames(type));
    const schema = isPluginType(type) ? pluginConfigSchemas[type].create : undefined;
    const made = await p.call('POST', '/plugins/configs', {
      query: { type },
      body: formToBody(schema, fields, secretNames(type), { creating: true }),
    });
    if (made.ok) return p.redirect(`${base}/${type}/${made.data.name}?saved=1`);
    const state = keptForm(deps, p.ui, fields, made.error.details ?? {}, secretNames(type));
    return form(p, { type }, state, refusedForm(made.error));
  });
  app.get<PathOf<'type' | 'name'>>(`${base}/:type/:name`, (request, reply) => {
    const p = openPage(deps, request, reply);
    return form(p, p.params, emptyForm);
  });
  app.post<PathOf<'type' | 'name'>>(`${base}/:type/:name`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const params = { type: p.params.type, name: p.params.name };
    const fields = deps.kept.restore(p.ui.csrf, p.fields, secretNames(params.type));
    const schema = isPluginType(params.type) ? pluginConfigSchemas[params.type].update : undefined;
    const saved = await p.call('PUT', '/plugins/configs/:type/:name', {
      params,
      body: formToBody(schema, fields, secretNames(params.type)),
    });
    if (saved.ok)
      return p.redirect(
        `${base}/${params.type}/${params.name}?saved=${saved.data.restart_needed ? 'restart' : '1'}`,
      );
    const state = keptForm(deps, p.ui, fields, saved.error.details ?? {}, secretNames(params.type));
    return form(p, params, state, refusedForm(saved.error));
  });
  app.post<PathOf<'type' | 'name'>>(`${base}/:type/:name/test`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const notifier = notifierTypes.find((t) => t === p.params.type);
    if (!notifier || !deps.api.has('POST', `/plugins/configs/${notifier}/:name/test`))
      return form(p, p.params, emptyForm, {
        status: 404,
        notices: [{ kind: 'error', text: 'This instance sends no tests.' }],
      });
    const sent = await p.call('POST', `/plugins/configs/${notifier}/:name/test`, {
      params: { name: p.params.name },
      body: {},
    });
    if (!sent.ok) return form(p, p.params, emptyForm, refused(sent.error));
    const row = sent.data;
    const outcome = row.outcome;
    const notice: Notice =
      outcome === 'delivered'
        ? { kind: 'ok', text: html`Test notification delivered (attempt ${row.attempts}).` }
        : outcome === 'failed'
          ? {
              kind: 'error',
              text: html`The test notification failed: ${row.last_error ?? 'no reason given'}.`,
            }
          : {
              kind: 'info',
              text: html`Test notification
                ${outcome.replace(/_/g, ' ')}${row.last_error ? html`: the first attempt failed (${row.last_error}) and retries go on` : ''};
                <a href="${uiPrefix}/notifications?include_tests=true">the notification log</a> shows how it
                ends.`,
            };
    return form(p, p.params, emptyForm, { notices: [notice] });
  });
  app.post<PathOf<'type' | 'name'>>(`${base}/:type/:name/delete`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const params = { type: p.params.type, name: p.params.name };
    const removed = await p.call('DELETE', '/plugins/configs/:type/:name', {
      params,
    });
    if (removed.ok) return p.redirect(base);
    return form(p, params, emptyForm, refused(removed.error));
  });
}
