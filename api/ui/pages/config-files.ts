/**
 * Configuration files in the web UI (docs/configuration-files.md): Export (all, or one
 * partner) downloads the file GET /config makes; Import shows the plan of POST /config/plan
 * for a pasted file, and only the second button, on that plan, runs POST /config/apply.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { configYaml } from '../../config-files/service.js';
import type { PlannedChange } from '../../config-files/plan.js';
import { configBodyLimit } from '../../resources/config/routes.js';
import type { ConfigFile } from '../../schemas/config-file.js';
import { csrfInput } from '../form.js';
import { html, type Html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import {
  bodyFields,
  callApi,
  mustCall,
  queryOf,
  refusal,
  sendPage,
  uiContext,
  type UiDeps,
} from './common.js';

const base = `${uiPrefix}/config`;

const shown = (value: unknown) => (value === undefined ? '' : JSON.stringify(value));

function planTable(changes: PlannedChange[]): Html {
  if (changes.length === 0)
    return html`<p class="empty">No changes: the install already says what the file says.</p>`;
  const verb = { create: 'Create', update: 'Update', delete: 'Delete' } as const;
  return html`<table class="plan">
    <caption>
      Planned changes
    </caption>
    <thead>
      <tr>
        <th scope="col">Change</th>
        <th scope="col">Record</th>
        <th scope="col">Field</th>
        <th scope="col">Now</th>
        <th scope="col">After</th>
      </tr>
    </thead>
    <tbody>
      ${changes.flatMap((c) => {
        const fields = c.action === 'delete' ? [] : c.changes;
        const head = html`<tr>
          <td>${verb[c.action]}</td>
          <td>${c.section} <strong>${c.name}</strong></td>
          <td colspan="3"></td>
        </tr>`;
        return [
          head,
          ...fields.map(
            (f) =>
              html`<tr>
                <td></td>
                <td></td>
                <td><code>${f.field}</code></td>
                <td>${f.secret ? '(secret)' : shown(f.old)}</td>
                <td>${f.secret ? '(secret changes)' : shown(f.new)}</td>
              </tr>`,
          ),
        ];
      })}
    </tbody>
  </table>`;
}

/**
 * Applying from the plan confirms the deletions the plan lists, by their number: a prune that
 * deletes more than half of the install needs it, and one that would delete another number
 * (the file edited since) is refused.
 */
function applyButton(plan: PlannedChange[]): Html {
  const deletes = plan.filter((c) => c.action === 'delete').length;
  return html`${
      deletes > 0
        ? html`<p class="hint">Applying deletes ${deletes} record(s), as listed below.</p>
            <input type="hidden" name="confirm_delete" value="${deletes}" />`
        : ''
    } <button type="submit" name="step" value="apply">Apply these changes</button>`;
}

async function importPage(
  deps: UiDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  state: { document: string; prune: boolean; plan?: PlannedChange[]; applied?: boolean; notices?: Notice[] },
  status = 200,
) {
  const ui = uiContext(deps, request, reply);
  const partners = await callApi<{ partners: { name: string }[] }>(
    deps,
    ui,
    request,
    reply,
    'GET',
    '/partners',
    {
      query: { limit: '500' },
    },
  );
  const names = partners.ok ? partners.data.partners.map((p) => p.name) : [];
  const body = html`<p class="intro">
      The install's partners, organizations, certificates, instances and routes as one YAML file
      (docs/configuration-files.md). Secrets are written as <code>\${env:NAME}</code> references, never in
      clear.
    </p>
    <section aria-labelledby="export-heading">
      <h2 id="export-heading">Export</h2>
      <p><a class="button" href="${base}/download" download>Export all</a></p>
      <form method="get" action="${base}/download" class="inline">
        <label for="export-partner">One partner</label>
        <select id="export-partner" name="partner">
          ${names.map((n) => html`<option value="${n}">${n}</option>`)}
        </select>
        <button type="submit">Export partner</button>
      </form>
    </section>
    <section aria-labelledby="import-heading">
      <h2 id="import-heading">Import</h2>
      <form method="post" action="${base}/import" class="stacked">
        ${csrfInput(ui.csrf)}
        <label for="document">Configuration file (YAML or JSON)</label>
        <textarea id="document" name="document" rows="16" spellcheck="false" required>
${state.document}</textarea>
        <label
          ><input type="checkbox" name="prune" value="true" ${state.prune ? 'checked' : ''} /> Delete what the
          file does not name (prune)</label
        >
        <button type="submit" name="step" value="plan">Show the plan</button>
        ${!state.applied && state.plan && state.plan.length > 0 ? applyButton(state.plan) : ''}
      </form>
      ${state.plan ? planTable(state.plan) : ''}
    </section>`;
  return sendPage(reply, ui, { title: 'Configuration files', body, notices: state.notices ?? [] }, status);
}

export function registerConfigFilePages(app: FastifyInstance, deps: UiDeps): void {
  app.get(`${base}/download`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const partner = queryOf(request).partner;
    const file = await mustCall<ConfigFile>(deps, ui, request, reply, 'GET', '/config', {
      query: partner ? { partner } : {},
    });
    const name = partner ? `pier-${partner}.yaml` : 'pier-config.yaml';
    return reply
      .type('text/yaml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(configYaml(file));
  });

  app.get(base, (request, reply) => importPage(deps, request, reply, { document: '', prune: false }));

  // The pasted file may be as large as the API takes.
  app.post(`${base}/import`, { bodyLimit: configBodyLimit }, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const fields = bodyFields(request);
    const document = typeof fields.document === 'string' ? fields.document : '';
    const prune = fields.prune === 'true';
    const apply = fields.step === 'apply';
    const confirmed = typeof fields.confirm_delete === 'string' ? Number(fields.confirm_delete) : undefined;
    const answer = await callApi<{ changes: PlannedChange[] }>(
      deps,
      ui,
      request,
      reply,
      'POST',
      apply ? '/config/apply' : '/config/plan',
      {
        body: { document, prune, ...(apply && confirmed !== undefined ? { confirm_delete: confirmed } : {}) },
      },
    );
    if (!answer.ok) {
      // Every problem of the file by its path: the file is one field, so they are listed here.
      const problems = Object.entries(answer.error.details ?? {});
      const text =
        answer.error.code === 'INVALID_INPUT' && problems.length > 0
          ? html`${answer.error.message}; nothing was applied:
              <ul class="details">
                ${problems.map(([path, problem]) => html`<li><code>${path}</code>: ${String(problem)}</li>`)}
              </ul>`
          : refusal(answer.error);
      const notices: Notice[] = [{ kind: 'error', text }];
      return importPage(deps, request, reply, { document, prune, notices }, answer.error.status);
    }
    if (apply) {
      const count = answer.data.changes.length;
      const notices: Notice[] = [{ kind: 'ok', text: `Applied: ${count} record(s) changed.` }];
      return importPage(deps, request, reply, {
        document,
        prune,
        plan: answer.data.changes,
        applied: true,
        notices,
      });
    }
    return importPage(deps, request, reply, { document, prune, plan: answer.data.changes });
  });
}
