/**
 * Configuration files in the web UI (docs/configuration-files.md): Export (all, or one
 * partner, or all with the keys sealed for an install sharing the secret key) downloads the
 * file GET /config makes; Import shows the plan of POST /config/plan for a pasted or uploaded
 * file, and only the second button, on that plan, runs POST /config/apply, after which the page
 * says which directories were made and which instances started or failed, and why.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { configYaml } from '../../config-files/service.js';
import type { PlannedChange } from '../../config-files/plan.js';
import type { z } from 'zod';
import type { ApiError } from '../../errors.js';
import type { ApplyBody } from '../../resources/config/routes.js';
import type { AnswerOf } from '../api-answers.js';
import { csrfInput } from '../form.js';
import { html, type Html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import { applyOutcome, planTable } from './config-plan.js';
import { readFilesForm } from './wizard/multipart.js';
import { refusal } from '../components/data.js';
import {
  bodyFields,
  callApi,
  mustCall,
  queryOf,
  sendPage,
  uiContext,
  type UiDeps,
} from '../components/request-context.js';
import { limits } from '../../../limits/limits.js';

const base = `${uiPrefix}/config`;

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
  state: {
    document: string;
    prune: boolean;
    plan?: PlannedChange[];
    applied?: Pick<AnswerOf<'POST', '/config/apply'>, 'directories' | 'instances'>;
    notices?: Notice[];
  },
  status = 200,
) {
  const ui = uiContext(deps, request, reply);
  const partners = await callApi(deps, ui, request, reply, 'GET', '/partners', { query: { limit: '500' } });
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
      ${sealedExport(ui.user.role === 'admin')}
    </section>
    <section aria-labelledby="import-heading">
      <h2 id="import-heading">Import</h2>
      <form method="post" action="${base}/import" enctype="multipart/form-data" class="stacked">
        ${csrfInput(ui.csrf)}
        <label for="config-file">Upload the file</label>
        <input
          type="file"
          id="config-file"
          name="file"
          accept=".yaml,.yml,.json,text/yaml,application/json"
        />
        <label for="document">Or paste it (YAML or JSON)</label>
        <textarea id="document" name="document" rows="16" spellcheck="false">${state.document}</textarea>
        <label
          ><input type="checkbox" name="prune" value="true" ${state.prune ? 'checked' : ''} /> Delete what the
          file does not name (prune)</label
        >
        <button type="submit" name="step" value="plan">Show the plan</button>
        ${!state.applied && state.plan && state.plan.length > 0 ? applyButton(state.plan) : ''}
      </form>
      ${state.applied ? applyOutcome(state.applied.directories, state.applied.instances) : ''}
      ${state.plan ? planTable(state.plan) : ''}
    </section>`;
  return sendPage(reply, ui, { title: 'Configuration files', body, notices: state.notices ?? [] }, status);
}

export function registerConfigFilePages(app: FastifyInstance, deps: UiDeps): void {
  app.get(`${base}/download`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { partner, seal_keys } = queryOf(request);
    const file = await mustCall(deps, ui, request, reply, 'GET', '/config', {
      query: { ...(partner ? { partner } : {}), ...(seal_keys === 'true' ? { seal_keys } : {}) },
    });
    const name = partner ? `pier-${partner}.yaml` : 'pier-config.yaml';
    return reply
      .type('text/yaml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(configYaml(file));
  });

  app.get(base, (request, reply) => importPage(deps, request, reply, { document: '', prune: false }));

  // The pasted file may be as large as the API takes.
  // The file may be as large as the API takes; a browser sends the form as multipart (it has a file field).
  app.post(`${base}/import`, { bodyLimit: limits.configBodyLimitBytes }, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const form = request.isMultipart()
      ? await readFilesForm(request, ['file'])
      : { fields: bodyFields(request), files: {} as Record<string, Buffer> };
    const fields = form.fields;
    const uploaded = form.files.file;
    // An uploaded file wins over the text box: it is what was chosen last.
    const document = uploaded
      ? uploaded.toString('utf8')
      : typeof fields.document === 'string'
        ? fields.document
        : '';
    const prune = fields.prune === 'true';
    const apply = fields.step === 'apply';
    const confirmed = typeof fields.confirm_delete === 'string' ? Number(fields.confirm_delete) : undefined;
    if (document.trim() === '') {
      const notices: Notice[] = [
        { kind: 'error', text: 'Choose a file to upload or paste one: nothing was read.' },
      ];
      return importPage(deps, request, reply, { document, prune, notices }, 400);
    }
    const body: z.input<typeof ApplyBody> = {
      document,
      prune,
      ...(apply && confirmed !== undefined ? { confirm_delete: confirmed } : {}),
    };
    const refusedFile = (error: ApiError) => {
      // Every problem of the file by its path: the file is one field, so they are listed here.
      const problems = Object.entries(error.details ?? {});
      const text =
        error.code === 'INVALID_INPUT' && problems.length > 0
          ? html`${error.message}; nothing was applied:
              <ul class="details">
                ${problems.map(([path, problem]) => html`<li><code>${path}</code>: ${String(problem)}</li>`)}
              </ul>`
          : refusal(error);
      const notices: Notice[] = [{ kind: 'error', text }];
      return importPage(deps, request, reply, { document, prune, notices }, error.status);
    };
    if (apply) {
      const answer = await callApi(deps, ui, request, reply, 'POST', '/config/apply', { body });
      if (!answer.ok) return refusedFile(answer.error);
      const { changes, directories, instances } = answer.data;
      const failures =
        instances.filter((i) => i.error).length + directories.filter((d) => d.outcome === 'failed').length;
      const notices: Notice[] = [
        {
          kind: failures > 0 ? 'error' : 'ok',
          text: `Applied: ${changes.length} record(s) changed${failures > 0 ? `; ${failures} problem(s) below` : ''}.`,
        },
      ];
      return importPage(deps, request, reply, {
        document,
        prune,
        plan: changes,
        applied: { directories, instances },
        notices,
      });
    }
    const answer = await callApi(deps, ui, request, reply, 'POST', '/config/plan', { body });
    if (!answer.ok) return refusedFile(answer.error);
    return importPage(deps, request, reply, { document, prune, plan: answer.data.changes });
  });
}

/**
 * Private keys leave in a configuration file only sealed with this install's secret key, which
 * only an install with the same key opens; where the other install has another key, the key
 * travels as a PKCS#12 file from its certificate's page instead.
 */
function sealedExport(admin: boolean): Html {
  const condition = html`The keys are sealed with this install's secret key (<code>PIER_SECRET_KEY</code>, or
    the data directory's <code>secret.key</code>): only an install started with the same secret key can open
    them. For an install with another key, download each key as a PKCS#12 file from its certificate's page
    (Certificates) and upload it there first.`;
  if (!admin)
    return html`<p class="hint">An administrator can export with the private keys sealed. ${condition}</p>`;
  return html`<form method="get" action="${base}/download" class="inline sealed-export">
    <input type="hidden" name="seal_keys" value="true" />
    <button type="submit">Export all, private keys sealed</button>
    <p class="hint">${condition}</p>
  </form>`;
}
