/**
 * Step 4: the AS2 receiver the partner sends to and the AS2 sender that sends to it, reused
 * when they exist (one receiver and one sender serve every partner) or made with defaults: the
 * receiver on a port nothing else uses. A new instance starts at once.
 */
import type { FastifyInstance } from 'fastify';
import { pluginTypeDefinitions } from '../../../../actors/index.js';
import { pluginConfigSchemas } from '../../../schemas/plugin-config.js';
import { html, type Html } from '../../html.js';
import { uiPrefix } from '../../layout.js';
import { csrfInput, field, formErrors, formToBody, type FormState } from '../../form.js';
import { type UiDeps } from '../../components/request-context.js';
import { keptValues, textOf } from './form-values.js';
import { sendWizardPage } from './frame.js';
import { suggestPort } from './free-port.js';
import type { Instance } from './readiness.js';
import { receiverConfigs } from './receivers.js';
import { registerStepRoutes, stepState } from './step-page.js';
import type { Answer, PageRequest } from '../../components/index.js';
import { StepWork } from './step-work.js';
import { stepHref, wizardBase } from './steps.js';

const receiverFields = ['receiver_name', 'receiver_host', 'receiver_port', 'receiver_path'];
const shown = ['receiver', ...receiverFields, 'sender', 'sender_name'];

/** A name no instance has, from a wanted one. */
function freeName(wanted: string, instances: readonly Instance[]): string {
  const taken = new Set(instances.map((i) => i.name.toLowerCase()));
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) if (!taken.has(`${wanted}-${n}`)) return `${wanted}-${n}`;
}

function choice(i: Instance, detail = ''): { value: string; label: string } {
  return { value: i.name, label: `Use ${i.name} (${i.status}${detail})` };
}

export function registerInstancesStep(app: FastifyInstance, deps: UiDeps): void {
  const path = `${wizardBase}/instances`;

  const page = async (p: PageRequest, form?: FormState, answer: Answer = {}) => {
    const { ui, request, reply } = p;
    const state = await stepState(p);
    const receivers = state.instances.filter((i) => i.type === 'as2-receiver');
    const senders = state.instances.filter((i) => i.type === 'as2-sender');
    const configs = await receiverConfigs(deps, ui, request, reply, state.instances);
    const used = new Set([...configs.values()].map((c) => c.port));
    used.add(deps.ctx.options.httpPort);
    if (deps.ctx.options.metricsPort !== null) used.add(deps.ctx.options.metricsPort);
    const defaults = pluginTypeDefinitions['as2-receiver'].defaults;
    const values: FormState = form ?? {
      values: {
        receiver: receivers[0]?.name ?? '',
        receiver_name: freeName('as2-in', state.instances),
        receiver_host: defaults.host,
        receiver_port: String(await suggestPort(Number(defaults.port), used)),
        receiver_path: defaults.path,
        sender: senders[0]?.name ?? '',
        sender_name: freeName('as2-out', state.instances),
      },
      errors: {},
    };
    const section = (legend: string, picker: Html, fresh: Html) =>
      html`<fieldset class="choice">
        <legend>${legend}</legend>
        ${picker}
        <div class="choice-body">${fresh}</div>
      </fieldset>`;
    const body = html`<p class="intro">
        One AS2 receiver takes messages from every partner on its own port, and one AS2 sender sends to every
        partner: use the ones you have, or make them here. A new instance starts at once.
      </p>
      ${
        receivers.length + senders.length > 0
          ? html`<p>
              Edit on their own pages:
              ${[...receivers, ...senders].map(
                (i, n) =>
                  html`${n > 0 ? ', ' : ''}<a href="${uiPrefix}/instances/${i.type}/${i.name}"
                      >${i.type} ${i.name}</a
                    >`,
              )}.
            </p>`
          : ''
      }
      <form method="post" action="${stepHref('instances', state.ids)}" class="record-form" novalidate>
        ${csrfInput(p.ui.csrf)} ${formErrors(values, shown)}
        ${section(
          'AS2 receiver',
          field(
            {
              name: 'receiver',
              label: 'Receiver',
              kind: 'select',
              options: [
                ...receivers.map((r) => choice(r, `, port ${configs.get(r.name)?.port ?? '?'}`)),
                { value: '', label: 'A new receiver' },
              ],
            },
            values,
          ),
          html`${field({ name: 'receiver_name', label: 'New receiver’s name', hint: 'Lower case letters, digits, _ or -' }, values)}
          ${field({ name: 'receiver_host', label: 'Listen on address', hint: '0.0.0.0 listens on every address of this host' }, values)}
          ${field({ name: 'receiver_port', label: 'Port', kind: 'number', hint: 'Suggested: a port no receiver uses and free on this host now' }, values)}
          ${field({ name: 'receiver_path', label: 'URL path', hint: 'Partners post to http://<this host>:<port><path>' }, values)}`,
        )}
        ${section(
          'AS2 sender',
          field(
            {
              name: 'sender',
              label: 'Sender',
              kind: 'select',
              options: [...senders.map((s) => choice(s)), { value: '', label: 'A new sender' }],
            },
            values,
          ),
          field(
            { name: 'sender_name', label: 'New sender’s name', hint: 'Lower case letters, digits, _ or -' },
            values,
          ),
        )}
        <button type="submit">Use these instances</button>
      </form>`;
    return sendWizardPage(p, state, answer, {
      step: 'instances',
      title: 'Partner set-up: receiver and sender',
      body,
    });
  };

  registerStepRoutes(app, deps, path, page, async (p) => {
    const { ui, request, reply } = p;
    const state = await stepState(p);
    const fields = p.fields;
    const work = new StepWork(deps, ui, request, reply);
    const plan: {
      type: 'as2-receiver' | 'as2-sender';
      body: Record<string, unknown>;
      place: { label: string; fields: Record<string, string> };
    }[] = [];
    let receiver = textOf(fields, 'receiver');
    let sender = textOf(fields, 'sender');
    const exists = (type: string, name: string) =>
      state.instances.some((i) => i.type === type && i.name === name);
    if (receiver !== '' && !exists('as2-receiver', receiver))
      work.problem('receiver', `No AS2 receiver is named ${receiver}`);
    if (sender !== '' && !exists('as2-sender', sender))
      work.problem('sender', `No AS2 sender is named ${sender}`);
    if (receiver === '') {
      const schema = pluginConfigSchemas['as2-receiver'].create;
      const body = formToBody(schema, {
        name: textOf(fields, 'receiver_name'),
        host: textOf(fields, 'receiver_host'),
        port: textOf(fields, 'receiver_port'),
        path: textOf(fields, 'receiver_path'),
      });
      const place = {
        label: 'New receiver',
        fields: {
          name: 'receiver_name',
          host: 'receiver_host',
          port: 'receiver_port',
          path: 'receiver_path',
        },
      };
      work.precheck(schema, body, place);
      plan.push({ type: 'as2-receiver', body, place });
    }
    if (sender === '') {
      const schema = pluginConfigSchemas['as2-sender'].create;
      const body = formToBody(schema, { name: textOf(fields, 'sender_name') });
      const place = { label: 'New sender', fields: { name: 'sender_name' } };
      work.precheck(schema, body, place);
      plan.push({ type: 'as2-sender', body, place });
    }
    const refused = async () => page(p, ...(await work.refusal(keptValues(fields))));
    if (work.failed) return refused();
    for (const item of plan) {
      const made = await work.call(
        'POST',
        '/plugins/configs',
        { query: { type: item.type }, body: item.body },
        item.place,
      );
      if (!made) return refused();
      work.made(`${item.type} ${made.name}`, 'DELETE', '/plugins/configs/:type/:name', {
        type: item.type,
        name: made.name,
      });
      if (made.type === 'as2-receiver') receiver = made.name;
      else sender = made.name;
    }
    return p.redirect(stepHref('routes', state.ids, { receiver, sender }));
  });
}
