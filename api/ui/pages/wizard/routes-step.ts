/**
 * Step 5: a route each way. Inbound: what the partner sends through the AS2 receiver goes to a
 * folder (a new file writer) or an existing target. Outbound: files put in a folder (a new
 * file poller, which takes them for this partner) or an existing source go to the partner
 * through the AS2 sender. The folders default to the data directory; the operator may name
 * others. A route that already covers a direction is shown, not made again.
 */
import { mkdir, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pluginConfigSchemas } from '../../../schemas/plugin-config.js';
import { html, type Html } from '../../html.js';
import { uiPrefix, type Notice } from '../../layout.js';
import { csrfInput, field, formErrors, formToBody, type FormState } from '../../form.js';
import { type UiDeps } from '../../components/request-context.js';
import { keptValues, textOf } from './form-values.js';
import { readinessList, sendWizardPage } from './frame.js';
import { findRoutes, type Instance, type RouteRow } from './readiness.js';
import { registerStepRoutes, stepState } from './step-page.js';
import type { Answer, PageRequest } from '../../components/index.js';
import { type WizardState } from './state.js';
import { StepWork, type Placement } from './step-work.js';
import { stepHref, wizardBase } from './steps.js';

const shown = [
  'receiver',
  'inbound_target',
  'inbox_name',
  'inbox_directory',
  'sender',
  'outbound_source',
  'outbox_name',
  'outbox_directory',
  'sent_directory',
];

function partyNames(state: WizardState) {
  return { org: state.organization?.name ?? '', partner: state.partner?.name ?? '' };
}

/** The step's two parties by name, and the routes between them as they stand. */
function routesBetween(state: WizardState) {
  const { org, partner } = partyNames(state);
  const parties = { organization: { id: 0, name: org }, partner: { id: 0, name: partner } };
  return { org, partner, ...findRoutes({ ...parties, instances: state.instances, routes: state.routes }) };
}

function folderDefaults(deps: UiDeps, partner: string) {
  const base = path.resolve(deps.ctx.options.dataDir, 'partners', partner);
  return {
    inbox_directory: path.join(base, 'inbox'),
    outbox_directory: path.join(base, 'outbox'),
    sent_directory: path.join(base, 'sent'),
  };
}

function options(instances: readonly Instance[], types: string[], fresh?: string) {
  return [
    ...instances
      .filter((i) => types.includes(i.type))
      .map((i) => ({ value: i.name, label: `${i.name} (${i.type}, ${i.status})` })),
    ...(fresh ? [{ value: '', label: fresh }] : []),
  ];
}

function covered(route: RouteRow): Html {
  return html`<p class="covered">
    Done: route <a href="${uiPrefix}/routes/${route.id}">${route.name}</a> takes ${route.from} to ${route.to}
    from ${route.source_plugin} to ${route.target_plugin}.
  </p>`;
}

/** Makes a folder and its missing parents; answers how to remove what it made, newest first. */
async function makeFolder(dir: string): Promise<() => Promise<void>> {
  const first = await mkdir(dir, { recursive: true, mode: 0o750 });
  if (!first) return async () => {};
  const made: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    made.push(d);
    if (d === first || path.dirname(d) === d) break;
  }
  return async () => {
    for (const d of made) await rmdir(d);
  };
}

export function registerRoutesStep(app: FastifyInstance, deps: UiDeps): void {
  const stepPath = `${wizardBase}/routes`;

  const page = async (p: PageRequest, form?: FormState, answer: Answer = {}) => {
    const state = await stepState(p);
    if (!state.organization || !state.partner)
      return p.redirect(stepHref(state.organization ? 'partner' : 'organization', state.ids));
    const { org, partner, inbound, outbound } = routesBetween(state);
    const receivers = options(state.instances, ['as2-receiver']);
    const senders = options(state.instances, ['as2-sender']);
    const values: FormState = form ?? {
      values: {
        receiver: p.query.receiver ?? receivers[0]?.value ?? '',
        sender: p.query.sender ?? senders[0]?.value ?? '',
        inbound_target: '',
        inbox_name: `${partner}-inbox`,
        outbound_source: '',
        outbox_name: `${partner}-outbox`,
        ...folderDefaults(deps, partner),
      },
      errors: {},
    };
    // An instance the previous step made that did not start is said here, with where to fix it.
    const notRunning = state.instances.filter(
      (i) => (i.name === values.values.receiver || i.name === values.values.sender) && i.status !== 'running',
    );
    const warnings: Notice[] = notRunning.map((i) => ({
      kind: 'error',
      text: html`${i.type} ${i.name} is ${i.status}${i.error ? `: ${i.error}` : ''}.
        <a href="${uiPrefix}/instances/${i.type}/${i.name}">Fix it on its page</a>`,
    }));
    const body = html`<p class="intro">
        A route takes each message from a source to a target. ${partner} needs one each way.
      </p>
      ${
        inbound && outbound
          ? html`${covered(inbound)}${covered(outbound)}
              <p><a class="next" href="${stepHref('check', state.ids)}">Next: check and test</a></p>`
          : html`<form method="post" action="${stepHref('routes', state.ids)}" class="record-form" novalidate>
              ${csrfInput(p.ui.csrf)} ${formErrors(values, shown)}
              <fieldset class="choice">
                <legend>From ${partner} to ${org} (inbound)</legend>
                ${
                  inbound
                    ? covered(inbound)
                    : html`${field({ name: 'receiver', label: 'Received by', kind: 'select', options: receivers }, values)}
                        ${field({ name: 'inbound_target', label: 'Deliver to', kind: 'select', options: options(state.instances, ['file-writer', 'http-poster'], 'A new folder (file writer)') }, values)}
                        <div class="choice-body">
                          ${field({ name: 'inbox_directory', label: 'Folder for received files', hint: 'Absolute path on this server; made when missing' }, values)}
                          ${field({ name: 'inbox_name', label: 'Its instance name' }, values)}
                        </div>`
                }
              </fieldset>
              <fieldset class="choice">
                <legend>From ${org} to ${partner} (outbound)</legend>
                ${
                  outbound
                    ? covered(outbound)
                    : html`${field({ name: 'outbound_source', label: 'Take files from', kind: 'select', options: options(state.instances, ['file-poller'], 'A new folder (file poller)') }, values)}
                        <div class="choice-body">
                          ${field({ name: 'outbox_directory', label: 'Folder to send from', hint: `Every file put here goes to ${partner}; absolute path, made when missing` }, values)}
                          ${field({ name: 'sent_directory', label: 'Move sent files to', hint: 'Not inside the folder above' }, values)}
                          ${field({ name: 'outbox_name', label: 'Its instance name' }, values)}
                        </div>
                        ${field({ name: 'sender', label: 'Sent by', kind: 'select', options: senders }, values)}`
                }
              </fieldset>
              <button type="submit">Create the routes</button>
            </form>`
      }
      ${readinessList(state.readiness, partner)}`;
    return sendWizardPage(p, state, answer, {
      step: 'routes',
      title: `Partner set-up: routes for ${partner}`,
      body,
      notices: warnings,
    });
  };

  registerStepRoutes(app, deps, stepPath, page, async (p) => {
    const { ui, request, reply } = p;
    const state = await stepState(p);
    if (!state.organization || !state.partner) return p.redirect(stepHref('organization', state.ids));
    const { org, partner, inbound, outbound } = routesBetween(state);
    const fields = p.fields;
    const work = new StepWork(deps, ui, request, reply);
    const routeSchema = deps.api.bodySchema('POST', '/routes');
    const plans: (() => Promise<boolean>)[] = [];

    const newInstance = (
      type: 'file-writer' | 'file-poller',
      fields: Record<string, string>,
      place: Placement,
    ) => {
      const schema = pluginConfigSchemas[type].create;
      const typed = formToBody(schema, fields);
      work.precheck(schema, typed, place);
      return async () => {
        const made = await work.call('POST', '/plugins/configs', { query: { type }, body: typed }, place);
        if (made)
          work.made(`${type} ${made.name}`, 'DELETE', '/plugins/configs/:type/:name', {
            type,
            name: made.name,
          });
        return Boolean(made);
      };
    };
    const newRoute = (body: Record<string, unknown>, place: Placement) => {
      work.precheck(routeSchema, body, place);
      return async () => {
        const made = await work.call('POST', '/routes', { body }, place);
        if (made) work.made(`route ${made.name}`, 'DELETE', '/routes/:id', { id: `${made.id}` });
        return Boolean(made);
      };
    };

    const needs = (name: 'receiver' | 'sender', type: string) => {
      const chosen = textOf(fields, name);
      if (!state.instances.some((i) => i.type === type && i.name === chosen))
        work.problem(name, `Choose an ${type}; make one in step 4 when there is none`);
    };
    if (!inbound) needs('receiver', 'as2-receiver');
    if (!outbound) needs('sender', 'as2-sender');
    if (!inbound) {
      let target = textOf(fields, 'inbound_target');
      if (target === '') {
        target = textOf(fields, 'inbox_name');
        plans.push(
          newInstance(
            'file-writer',
            { name: target, directory: textOf(fields, 'inbox_directory'), path_pattern: '{filename}' },
            { label: 'New file writer', fields: { name: 'inbox_name', directory: 'inbox_directory' } },
          ),
        );
      }
      plans.push(
        newRoute(
          { source_plugin: textOf(fields, 'receiver'), from: partner, to: org, target_plugin: target },
          {
            label: 'Inbound route',
            fields: { source_plugin: 'receiver', target_plugin: 'inbound_target', to: 'inbound_target' },
          },
        ),
      );
    }
    if (!outbound) {
      let source = textOf(fields, 'outbound_source');
      if (source === '') {
        source = textOf(fields, 'outbox_name');
        const outbox = textOf(fields, 'outbox_directory');
        const sent = textOf(fields, 'sent_directory');
        const create = newInstance(
          'file-poller',
          {
            name: source,
            base_directory: outbox,
            processed_directory: sent,
            path_pattern: '{filename}',
            from: org,
            to: partner,
          },
          {
            label: 'New file poller',
            fields: {
              name: 'outbox_name',
              base_directory: 'outbox_directory',
              processed_directory: 'sent_directory',
            },
          },
        );
        plans.push(async () => {
          // The poller reads its folder when it starts: the folders are made first.
          for (const dir of [outbox, sent]) {
            try {
              work.madeOther(`folder ${dir}`, await makeFolder(dir));
            } catch (error) {
              work.problem(
                dir === outbox ? 'outbox_directory' : 'sent_directory',
                `Cannot be made: ${(error as Error).message}`,
              );
              return false;
            }
          }
          return create();
        });
      }
      plans.push(
        newRoute(
          { source_plugin: source, from: org, to: partner, target_plugin: textOf(fields, 'sender') },
          {
            label: 'Outbound route',
            fields: { source_plugin: 'outbound_source', target_plugin: 'sender', to: 'sender' },
          },
        ),
      );
    }
    const refused = async () => page(p, ...(await work.refusal(keptValues(fields))));
    if (work.failed) return refused();
    for (const run of plans) if (!(await run())) return refused();
    return p.redirect(stepHref('check', state.ids));
  });
}
