/**
 * AS2 profiles of organizations (local) and partners (remote) in the web UI: a summary on the
 * party's page and a profile page with the form, the interop presets explained, and for
 * partners the connection check (step by step) and a test message.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { interopPresets } from '../../../protocol/as2/interop-presets.js';
import { html, type Html } from '../html.js';
import { actionButton, backLink, checkResult, openPage, recordForm } from '../components/index.js';
import {
  refusedForm,
  type Answer,
  type AnswerOf,
  type CheckAnswer,
  type PageRequest,
  type PathOf,
} from '../components/index.js';
import { uiPrefix, type Notice, type UiRequestContext } from '../layout.js';
import {
  csrfInput,
  emptyForm,
  field,
  formToBody,
  kindOf,
  shapeOf,
  specFromSchema,
  storedValue,
} from '../form.js';
import type { FormState } from '../form.js';
import { facts, refusal } from '../components/data.js';
import { callApi, type UiDeps } from '../components/request-context.js';

import { z } from 'zod';
import { asPicker, pickerOf, type Choices } from '../pickers.js';
import { refusedForm as keptForm } from './crud.js';

type LocalProfile = AnswerOf<'GET', '/as2/local-profiles/:id'>;
type RemoteProfile = AnswerOf<'GET', '/as2/remote-profiles/:id'>;
export type ProfileSide = 'local' | 'remote';

const sides = {
  local: {
    api: '/as2/local-profiles',
    party: '/organizations',
    link: 'local_organization_id',
    word: 'organization',
  },
  remote: { api: '/as2/remote-profiles', party: '/partners', link: 'business_partner_id', word: 'partner' },
} as const;

const writeOnly = ['http_basic_password', 'http_headers'];

/**
 * What each interop preset sets and why, folded: on the profile page as a list of reasons, in
 * the wizard as one sentence each.
 */
export function presetList(summary = 'What each interop preset does', reasonsAsList = true): Html {
  return html`<details class="presets">
    <summary>${summary}</summary>
    <dl>
      ${Object.entries(interopPresets).map(([name, p]) => {
        const reasons = Object.values(p.reasons).filter((r) => r !== undefined);
        return html`<dt>${name}: ${p.description}</dt>
          <dd>
            ${
              reasonsAsList
                ? html`<ul>
                    ${reasons.map((r) => html`<li>${r}</li>`)}
                  </ul>`
                : reasons.join(' ')
            }
          </dd>`;
      })}
    </dl>
  </details>`;
}

/** What the party's page says of a partner's profile: where and how messages go. */
function remoteFacts(p: RemoteProfile): [string, string][] {
  return [
    ['AS2 id', p.as2id],
    ['Endpoint', p.endpoint],
    ['Signing', p.signing_algorithm],
    ['Encryption', p.encryption_algorithm],
    ['Receipt', `${p.mdn_mode}${p.mdn_signed ? ', signed' : ''}`],
    ['Interop preset', p.interop_preset || 'none'],
  ];
}

/** What the party's page says of an organization's profile. */
function localFacts(p: LocalProfile): [string, string][] {
  return [
    ['AS2 id', p.as2id],
    ['Signing certificate', `${p.signing_certificate_id}`],
  ];
}

/** The profile summary on a party's page. */
export async function profileSection(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  side: ProfileSide,
  party: { id: number },
): Promise<Html> {
  const s = sides[side];
  if (!deps.api.has('GET', `${s.api}/:id`)) return html``;
  const input = { params: { id: `${party.id}` } };
  const shown =
    side === 'remote'
      ? await callApi(deps, ui, request, reply, 'GET', '/as2/remote-profiles/:id', input).then((got) =>
          got.ok ? remoteFacts(got.data) : undefined,
        )
      : await callApi(deps, ui, request, reply, 'GET', '/as2/local-profiles/:id', input).then((got) =>
          got.ok ? localFacts(got.data) : undefined,
        );
  const profileHref = `${uiPrefix}${s.party}/${party.id}/profile`;
  if (!shown) {
    return html`<section aria-labelledby="profile-heading">
      <h2 id="profile-heading">AS2 profile</h2>
      <p>No AS2 profile yet. <a href="${profileHref}">Add an AS2 profile</a></p>
    </section>`;
  }
  return html`<section aria-labelledby="profile-heading">
    <h2 id="profile-heading">AS2 profile</h2>
    ${facts(shown)}
    <p><a href="${profileHref}">Edit the AS2 profile</a></p>
  </section>`;
}

function profileFields(
  schema: unknown,
  row: LocalProfile | RemoteProfile | undefined,
  side: ProfileSide,
  choices: Choices,
  state: FormState,
) {
  const shape = shapeOf(schema as never);
  return Object.keys(shape)
    .filter((n) => n !== sides[side].link && !['never', 'unknown'].includes(kindOf(shape[n])))
    .map((n) => {
      let spec = specFromSchema(n, shape[n]!);
      if (row && !writeOnly.includes(n)) spec.value = storedValue(row, n);
      // A certificate is picked from those stored, a list of them from a multi-select.
      const picker = pickerOf(n, 'profile');
      if (picker) {
        spec = asPicker(spec, picker, choices, state.values[n] ?? spec.value);
        spec.hint = `${spec.hint ? `${spec.hint}. ` : ''}Upload new ones on the certificates page`;
      }
      if (n === 'interop_preset') {
        spec.kind = 'select';
        spec.options = [
          { value: '', label: 'none' },
          ...Object.entries(interopPresets).map(([k, p]) => ({ value: k, label: `${k}: ${p.description}` })),
        ];
      }
      if (writeOnly.includes(n)) {
        spec.secretSet = Boolean(storedValue(row, `${n}_set`));
        if (n === 'http_basic_password') spec.kind = 'password';
      }
      return spec;
    });
}

export function registerProfilePages(app: FastifyInstance, deps: UiDeps): void {
  for (const side of ['local', 'remote'] as const) {
    const s = sides[side];
    if (!deps.api.has('GET', `${s.api}/:id`)) continue;
    const base = `${uiPrefix}${s.party}/:id/profile`;
    const createSchema = deps.api.bodySchema('POST', s.api);
    const updateSchema = deps.api.bodySchema('PUT', `${s.api}/:id`);

    const page = async (
      p: PageRequest<PathOf<'id'>>,
      form: FormState,
      answer: Answer = {},
      extra: Html = html``,
    ) => {
      const id = p.params.id;
      const party = await p.must('GET', `${s.party}/:id`, { params: { id } });
      const got = await p.call('GET', `${s.api}/:id`, { params: { id } });
      const row = got.ok ? got.data : undefined;
      const choices = await p.choices({
        certificates: true,
        instances: side === 'remote',
        parties: side === 'remote',
      });
      const fields = profileFields(row ? updateSchema : createSchema, row, side, choices, form);
      const action = `${uiPrefix}${s.party}/${id}/profile`;
      const saved = p.query.saved;
      const submit = row ? 'Save profile' : 'Create profile';
      const notices: Notice[] = saved ? [{ kind: 'ok', text: 'Saved.' }] : [];
      const body = html`${backLink(`${uiPrefix}${s.party}/${id}`, `Back to ${s.word} ${party.name}`)}
      ${side === 'remote' ? presetList() : ''}
      ${recordForm({ action, csrf: p.ui.csrf, fields, state: form, submit })}
      ${row && side === 'remote' ? partnerTools(p.ui, id, choices) : ''} ${extra}
      ${row ? actionButton(p.ui.csrf, `${action}/delete`, 'Delete profile', { danger: true }) : ''}`;
      return p.send({ title: `AS2 profile of ${s.word} ${party.name}`, notices, body }, answer);
    };

    app.get<PathOf<'id'>>(base, (request, reply) => page(openPage(deps, request, reply), emptyForm));

    app.post<PathOf<'id'>>(base, async (request, reply) => {
      const p = openPage(deps, request, reply);
      const id = p.params.id;
      const fields = deps.kept.restore(p.ui.csrf, p.fields, writeOnly);
      const exists = await p.call('GET', `${s.api}/:id`, { params: { id } });
      const outcome = exists.ok
        ? await p.call('PUT', `${s.api}/:id`, {
            params: { id },
            body: formToBody(updateSchema, fields, writeOnly),
          })
        : await p.call('POST', s.api, {
            body: {
              [s.link]: Number(id),
              ...formToBody(createSchema, fields, writeOnly, { creating: true }),
            },
          });
      if (outcome.ok) return p.redirect(`${uiPrefix}${s.party}/${id}/profile?saved=1`);
      const state = keptForm(deps, p.ui, fields, outcome.error.details ?? {}, writeOnly);
      return page(p, state, refusedForm(outcome.error));
    });

    app.post<PathOf<'id'>>(`${base}/delete`, async (request, reply) => {
      const p = openPage(deps, request, reply);
      const id = p.params.id;
      const removed = await p.call('DELETE', `${s.api}/:id`, { params: { id } });
      if (removed.ok) return p.redirect(`${uiPrefix}${s.party}/${id}`);
      return page(p, emptyForm, {
        status: removed.error.status,
        notices: [{ kind: 'error', text: refusal(removed.error) }],
      });
    });

    if (side !== 'remote') continue;

    app.post<PathOf<'id'>>(`${base}/check-connection`, async (request, reply) => {
      const p = openPage(deps, request, reply);
      const id = p.params.id;
      const body = toolBody(p.fields, ['sender']);
      const checked = await p.call('POST', '/as2/remote-profiles/:id/check-connection', {
        params: { id },
        body,
      });
      if (!checked.ok)
        return page(p, emptyForm, {
          status: checked.error.status,
          notices: [{ kind: 'error', text: refusal(checked.error) }],
        });
      return page(p, emptyForm, {}, connectionSteps(checked.data));
    });

    app.post<PathOf<'id'>>(`${base}/test-message`, async (request, reply) => {
      const p = openPage(deps, request, reply);
      const id = p.params.id;
      const sent = await p.call('POST', '/as2/remote-profiles/:id/test-message', {
        params: { id },
        body: toolBody(p.fields, ['sender', 'organization']),
      });
      if (sent.ok) return p.redirect(`${uiPrefix}/messages/${sent.data.message_id}`);
      return page(p, emptyForm, {
        status: sent.error.status,
        notices: [{ kind: 'error', text: refusal(sent.error) }],
      });
    });
  }
}

function partnerTools(ui: UiRequestContext, id: string, choices: Choices): Html {
  const action = `${uiPrefix}/partners/${id}/profile`;
  const blank = { values: {}, errors: {} };
  const sender = (elementId: string) =>
    asPicker({ ...specFromSchema('sender', z.string()), id: elementId }, 'as2-sender', choices);
  return html`<section aria-labelledby="tools-heading">
    <h2 id="tools-heading">Try the connection</h2>
    <form method="post" action="${action}/check-connection" class="record-form">
      ${csrfInput(ui.csrf)} ${field(sender('check-sender'), blank)}
      <button type="submit">Check connection</button>
    </form>
    <form method="post" action="${action}/test-message" class="record-form">
      ${csrfInput(ui.csrf)} ${field(sender('test-sender'), blank)}
      ${field(asPicker({ ...specFromSchema('organization', z.string()), id: 'test-organization' }, 'organization', choices), blank)}
      <button type="submit">Send a test message</button>
    </form>
  </section>`;
}

/** The optional text fields of a partner tool, left out when blank (as the API allows). */
function toolBody(fields: Record<string, string | string[]>, names: string[]): Record<string, string> {
  const body: Record<string, string> = {};
  for (const n of names) {
    const v = fields[n];
    if (typeof v === 'string' && v !== '') body[n] = v;
  }
  return body;
}

/** The check's steps in order, each with its outcome. */
function connectionSteps(result: CheckAnswer): Html {
  return checkResult('check', 'Connection check', result);
}
