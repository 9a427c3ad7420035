/**
 * Send EDI as JSON from the web UI: paste or upload the JSON (an interchange in pier's JSON form,
 * or documents pier puts in envelopes), pick the organization, the partner and the target, see
 * the interchange it will make, then send it. The send runs POST /messages/edi itself, so it is
 * accepted and refused as the API accepts and refuses it (docs/edi-json.md#json-to-edi-sending).
 */
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import { toApiError } from '../../plugins/error-handler.js';
import { spoolBody, spoolDirectory } from '../../resources/messages/json-spool.js';
import { openPage, refusal, type PageRequest } from '../components/index.js';
import { field, formErrors, type FormState } from '../form.js';
import { html, type Html } from '../html.js';
import { uiPrefix } from '../layout.js';
import { asPicker, type Choices } from '../pickers.js';
import type { UiDeps } from '../components/request-context.js';
import { previewOf, resolveBody, type Preview, type SendChoices } from './edi-json-preview.js';
import { textOf } from './wizard/form-values.js';
import { readFilesForm } from './wizard/multipart.js';
import { limits } from '../../../limits/limits.js';

export const sendEdiJsonPath = `${uiPrefix}/messages/edi-json`;

function formBody(p: PageRequest, state: FormState, choices: Choices, preview?: Preview): Html {
  const partners = [
    { value: '', label: 'choose a partner' },
    ...choices.partners.map((n) => ({ value: n, label: n })),
  ];
  const organizations = [
    { value: '', label: 'choose an organization' },
    ...choices.organizations.map((n) => ({ value: n, label: n })),
  ];
  const names = ['from', 'to', 'target', 'file_name', 'json', 'file'];
  const shownPreview = preview
    ? preview.ok
      ? html`<section aria-labelledby="preview-heading" id="edi-preview">
          <h2 id="preview-heading">The interchange it will make</h2>
          <p>${preview.note}</p>
          <pre
            class="edi-preview"
            tabindex="0"
          ><code>${preview.edi.length > limits.jsonPreviewChars ? `${preview.edi.slice(0, limits.jsonPreviewChars)}\n…` : preview.edi}</code></pre>
          <p>Nothing was sent yet: send it with the form above.</p>
        </section>`
      : html`<div class="alert alert-error" role="alert" id="edi-preview-problem">
          <strong>No interchange:</strong> ${preview.problem}
        </div>`
    : '';
  return html`<p class="intro">
      EDI given as JSON: an interchange in pier's JSON form (a message page's
      <em>The interchange as JSON</em> gives one), or documents without envelopes (<code>standard</code> and
      <code>sets</code>), which pier puts in envelopes with the parties' interchange ids, the partner's
      envelope settings and its next control numbers (docs/edi-json.md describes both).
    </p>
    <form
      method="post"
      action="${sendEdiJsonPath}"
      enctype="multipart/form-data"
      class="record-form"
      novalidate
    >
      ${formErrors(state, names)}
      ${field({ name: 'from', id: 'edi-from', label: 'From (organization)', kind: 'select', options: organizations, required: true }, state)}
      ${field({ name: 'to', id: 'edi-to', label: 'To (partner)', kind: 'select', options: partners, required: true }, state)}
      ${field(asPicker({ name: 'target', id: 'edi-target', label: 'Target', hint: 'The target instance; by default the one the routes from From to To name' }, 'target-or-routes', choices, state.values.target), state)}
      ${field({ name: 'file_name', id: 'edi-file_name', label: 'File name', hint: 'Default: the interchange control number with .edi' }, state)}
      ${field({ name: 'json', id: 'edi-json', label: 'JSON', kind: 'textarea', hint: 'Paste it here, or choose a file below (a file wins)' }, state)}
      ${field({ name: 'file', id: 'edi-file', label: 'JSON file', kind: 'file', hint: 'At most 20 MiB; a file’s JSON is put in the box above after a preview' }, state)}
      <button type="submit" name="action" value="preview">Show the interchange</button>
      <button type="submit" name="action" value="send">Send</button>
    </form>
    ${shownPreview}`;
}

async function draw(p: PageRequest, state: FormState, preview?: Preview, status = 200, notice?: Html) {
  const choices = await p.choices({ parties: true, instances: true });
  return p.send(
    { title: 'Send EDI as JSON', body: formBody(p, state, choices, preview) },
    { status, ...(notice ? { notices: [{ kind: 'error' as const, text: notice }] } : {}) },
  );
}

/** The partner's and organization's records and the partner's outbound counters, for a preview. */
async function previewFacts(p: PageRequest, from: string, to: string) {
  const query = (name: string) => ({ query: { q: name, limit: '500' } });
  const organizations = from === '' ? undefined : await p.call('GET', '/organizations', query(from));
  const partners = to === '' ? undefined : await p.call('GET', '/partners', query(to));
  const organization = organizations?.ok
    ? organizations.data.organizations.find((r) => r.name === from)
    : undefined;
  const partner = partners?.ok ? partners.data.partners.find((r) => r.name === to) : undefined;
  const lastNumbers: Record<string, number> = {};
  if (partner && p.deps.api.has('GET', '/partners/:id/control-numbers')) {
    const got = await p.call('GET', '/partners/:id/control-numbers', { params: { id: `${partner.id}` } });
    if (got.ok)
      for (const c of got.data.control_numbers)
        if (c.direction === 'outbound') lastNumbers[c.level] = c.last_value;
  }
  return { organization, partner, lastNumbers };
}

export function registerSendEdiJson(app: FastifyInstance, deps: UiDeps): void {
  app.get(sendEdiJsonPath, (request, reply) => {
    const p = openPage(deps, request, reply);
    return draw(p, { values: {}, errors: {} });
  });

  app.post(sendEdiJsonPath, async (request, reply) => {
    const p = openPage(deps, request, reply);
    let form;
    try {
      form = await readFilesForm(request, ['file'], limits.pastedJsonMaxBytes);
    } catch (error) {
      const known = toApiError(error, request);
      if (!known) throw error;
      return draw(p, { values: {}, errors: known.details ?? {} }, undefined, known.status, refusal(known));
    }
    const choices: SendChoices = {
      from: textOf(form.fields, 'from'),
      to: textOf(form.fields, 'to'),
      target: textOf(form.fields, 'target'),
      file_name: textOf(form.fields, 'file_name'),
    };
    const upload = form.files.file;
    const text = upload ? upload.toString('utf8') : textOf(form.fields, 'json');
    // The file's JSON goes into the box, so a send after the preview needs no second upload.
    const values = { ...choices, json: text.length <= limits.pastedJsonMaxBytes ? text : '' };
    const resolved = resolveBody(text, choices);
    if (!resolved.ok) return draw(p, { values, errors: { json: resolved.problem } }, undefined, 400);

    if (textOf(form.fields, 'action') !== 'send') {
      const preview = await previewOf(resolved.body, await previewFacts(p, choices.from, choices.to));
      return draw(p, { values, errors: {} }, preview, preview.ok ? 200 : 400);
    }
    const json = Buffer.from(JSON.stringify(resolved.body), 'utf8');
    const spool = await spoolBody(
      Readable.from([json]),
      spoolDirectory(deps.ctx.options.dataDir),
      limits.maxUploadBytes + 1024 * 1024,
      String(json.length),
    );
    const sent = await p.call('POST', '/messages/edi', { body: spool }).finally(() => spool.remove());
    if (sent.ok) return p.redirect(`${uiPrefix}/messages/${sent.data.id}?done=sent`);
    const {
      interchange,
      documents,
      segment: _s,
      tag: _t,
      element: _e,
      ...errors
    } = (sent.error.details ?? {}) as Record<string, unknown>;
    void [_s, _t, _e];
    // What the API says of the interchange or the documents is said of the JSON the person gave.
    if (interchange !== undefined || documents !== undefined) errors.json = interchange ?? documents;
    return draw(
      p,
      { values, errors },
      undefined,
      sent.error.status,
      sent.error.code === 'INVALID_INPUT' ? undefined : refusal(sent.error),
    );
  });
}
