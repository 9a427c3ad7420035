/**
 * Certificates: the list with the filters of docs/api/conventions.md#lists and expiry state, upload with the
 * import-token flow (choose among what the file holds), detail with its facts, description
 * edit, where it is used, delete (409 CERTIFICATE_IN_USE in words), PEM or DER export, a
 * warning when the stored key does not belong to the certificate, and rollover planning.
 * Generating keys and CSRs is in certificate-generate.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readUploadForm } from '../../resources/certificates/form.js';
import { uploadCertificates } from '../../resources/certificates/upload.js';
import { toApiError } from '../../plugins/error-handler.js';
import { html, type Html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import { csrfInput, emptyForm, field, formErrors, type FormState } from '../form.js';
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
import { usageSection } from './certificate-usage.js';
import { pendingRequestsSection, registerCertificateGeneratePages } from './certificate-generate.js';
import { registerRolloverPage, rolloverSection } from './certificate-rollover.js';

type Row = Record<string, unknown>;
const base = `${uiPrefix}/certificates`;

/** What a certificate's page says after the change that led to it. */
const savedText: Record<string, string> = {
  uploaded: 'Saved.',
  generated: 'Key pair and self-signed certificate made. Export the certificate for your partners below.',
  completed: "The CA's certificate is stored with the request's key.",
  rollover: 'Added beside the current certificates: see where it is used.',
};

function certificateName(r: Row): string {
  return String(r.description || r.common_name || r.subject || r.id);
}

async function listPage(
  deps: UiDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  upload: FormState,
  status = 200,
  notices: Notice[] = [],
) {
  const ui = uiContext(deps, request, reply);
  const query = queryOf(request);
  const listed = await callApi<Row>(deps, ui, request, reply, 'GET', '/certificates', { query });
  const filterState = { values: query, errors: listed.ok ? {} : (listed.error.details ?? {}) };
  const body = html`<p class="actions"><a class="button" href="${base}/generate">Generate a key pair</a></p>
    <form class="filters" method="get" action="${base}" role="search" aria-label="Filter certificates">
      ${field({ name: 'q', label: 'Search', hint: 'Description, names, serial, or the start of the SHA-256 fingerprint' }, filterState)}
      ${field({ name: 'status', label: 'State', kind: 'select', options: [{ value: '', label: 'any' }, 'valid', 'expiring', 'expired'] }, filterState)}
      ${field({ name: 'key', label: 'Private key', kind: 'select', options: [{ value: '', label: 'any' }, 'present', 'absent'] }, filterState)}
      <button type="submit">Filter</button>
    </form>
    ${
      listed.ok
        ? html`${table(
            'Certificates',
            [
              {
                label: 'Certificate',
                cell: (r: Row) => html`<a href="${base}/${String(r.id)}">${certificateName(r)}</a>`,
              },
              { label: 'Subject', cell: (r) => String(r.subject) },
              { label: 'State', cell: (r) => badge(String(r.state)) },
              { label: 'Days left', cell: (r) => String(r.days_remaining) },
              {
                label: 'Key',
                cell: (r) =>
                  r.has_private_key
                    ? r.private_key_matches
                      ? 'yes, matches'
                      : badge('does not match', 'error')
                    : 'no',
              },
              { label: 'Expires', cell: (r) => when(r.not_after as string) },
            ],
            listed.data.certificates as Row[],
            'No certificates match.',
          )}${pager(base, query, listed.data as never)}`
        : html`<div class="alert alert-error" role="alert">${refusal(listed.error)}</div>`
    }
    ${await pendingRequestsSection(deps, ui, request, reply)}
    <section aria-labelledby="upload-heading">
      <h2 id="upload-heading">Upload</h2>
      <p class="intro">
        A certificate, a chain, a PKCS#12 file or a key, in any supported format. One certificate with a
        description is stored at once; anything else shows what the file holds so you can choose.
      </p>
      <form
        method="post"
        action="${base}/upload"
        enctype="multipart/form-data"
        class="record-form"
        novalidate
      >
        ${formErrors(upload, ['certificate', 'private_key', 'password', 'private_key_password', 'description'])}
        ${field({ name: 'certificate', label: 'Certificate file', kind: 'file', required: true }, upload)}
        ${field({ name: 'private_key', label: 'Private key file', kind: 'file', hint: 'Optional' }, upload)}
        ${field({ name: 'password', label: 'Password', kind: 'password', hint: 'For a PKCS#12 file or an encrypted key' }, upload)}
        ${field({ name: 'description', label: 'Description', hint: 'With a single certificate, stores it at once' }, upload)}
        <button type="submit">Upload</button>
      </form>
    </section>`;
  return sendPage(reply, ui, { title: 'Certificates', body, notices }, status);
}

function importChoice(csrf: string, findings: Row): Html {
  const found = findings.found as { certificates: Row[]; keys: Row[] };
  return html`<form method="post" action="${base}/import" class="record-form">
    ${csrfInput(csrf)}
    <input type="hidden" name="import_token" value="${String(findings.import_token)}" />
    <p>
      The file holds ${found.certificates.length} certificate(s) and ${found.keys.length} key(s). Choose what
      to store (the choice is valid until ${when(findings.expires_at as string)}).
    </p>
    ${
      (findings.notes as string[]).length > 0
        ? html`<ul>
            ${(findings.notes as string[]).map((n) => html`<li>${n}</li>`)}
          </ul>`
        : ''
    }
    ${found.certificates.map(
      (c) =>
        html`<fieldset class="found">
          <legend>${String(c.subject)}</legend>
          ${facts([
            ['Issuer', String(c.issuer)],
            ['Valid until', when(c.not_after as string)],
            ['State', badge(String(c.state))],
            ['Private key', c.key_index === null ? 'not in the file' : 'in the file'],
            [
              'Already stored',
              c.existing_id === null
                ? 'no'
                : `yes, certificate ${String(c.existing_id)}${c.adds_private_key ? ' (its key is added)' : ''}`,
            ],
            ['SHA-256', html`<code>${String(c.fingerprint_sha256)}</code>`],
          ])}
          <div class="field field-check">
            <input type="checkbox" id="pick-${String(c.index)}" name="pick" value="${String(c.index)}" />
            <label for="pick-${String(c.index)}">Import this certificate</label>
          </div>
          <div class="field">
            <label for="desc-${String(c.index)}">Description</label>
            <input
              type="text"
              id="desc-${String(c.index)}"
              name="description_${String(c.index)}"
              value="${String(c.friendly_name || c.common_name)}"
            />
          </div>
        </fieldset>`,
    )}
    <button type="submit">Import selected</button>
  </form>`;
}

export function registerCertificatePages(app: FastifyInstance, deps: UiDeps): void {
  app.get(base, (request, reply) => listPage(deps, request, reply, emptyForm));

  app.post(`${base}/upload`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    try {
      // The API route answers by itself, so the UI runs the same reader and service.
      const answer = await uploadCertificates(deps.ctx, ui.user.caller, await readUploadForm(request));
      if ('record' in answer) return seeOther(reply, `${base}/${answer.record.id}?saved=uploaded`);
      return sendPage(reply, ui, {
        title: 'Choose certificates to import',
        body: importChoice(ui.csrf, answer.findings),
      });
    } catch (error) {
      const known = toApiError(error, request);
      if (!known) throw error;
      const state = { values: {}, errors: known.details ?? {} };
      return listPage(
        deps,
        request,
        reply,
        state,
        known.status,
        known.code === 'INVALID_INPUT' ? [] : [{ kind: 'error', text: refusal(known) }],
      );
    }
  });

  app.post(`${base}/import`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const fields = bodyFields(request);
    const picks = [fields.pick ?? []].flat();
    const body = {
      import_token: String(fields.import_token ?? ''),
      certificates: picks.map((p) => {
        const description = fields[`description_${p}`];
        return {
          index: Number(p),
          ...(typeof description === 'string' && description !== '' ? { description } : {}),
        };
      }),
    };
    const done = await callApi<Row>(deps, ui, request, reply, 'POST', '/certificates/import', { body });
    if (done.ok) {
      const ids = (done.data.certificates as Row[]).map((c) => String(c.id));
      return sendPage(reply, ui, {
        title: 'Certificates imported',
        notices: [{ kind: 'ok', text: `Imported ${ids.length} certificate(s).` }],
        body: html`<ul>
            ${(done.data.certificates as Row[]).map((c) => html`<li><a href="${base}/${String(c.id)}">${certificateName(c)}</a></li>`)}
          </ul>
          <p><a href="${base}">All certificates</a></p>`,
      });
    }
    return listPage(deps, request, reply, emptyForm, done.error.status, [
      {
        kind: 'error',
        text: html`${refusal(done.error)}${done.error.details ? html` ${JSON.stringify(done.error.details)}` : ''}`,
      },
    ]);
  });

  const detail = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form: FormState,
    status = 200,
    notices: Notice[] = [],
  ) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params as { id: string };
    const c = await mustCall<Row>(deps, ui, request, reply, 'GET', '/certificates/:id', { params: { id } });
    const saved = (request.query as { saved?: string }).saved;
    const list = (v: unknown) => ((v as string[]) ?? []).join(', ') || '—';
    const mismatch = Boolean(c.has_private_key) && !c.private_key_matches;
    const body = html`<p>
        <a href="${base}">All certificates</a> · Export for a partner:
        <a href="${base}/${id}/download" download>PEM</a> ·
        <a href="${base}/${id}/download?format=der" download>DER (.cer)</a>
      </p>
      ${
        mismatch
          ? html`<div class="alert alert-error key-mismatch" role="alert">
              <strong>The stored private key does not belong to this certificate.</strong> pier cannot sign or
              decrypt with it: profiles that use it for signing or decryption fail. Upload the certificate
              with its own key (the import adds it), or generate a new key pair.
            </div>`
          : ''
      }
      ${facts([
        ['Subject', String(c.subject)],
        ['Issuer', String(c.issuer)],
        ['Serial number', html`<code>${String(c.serial_number)}</code>`],
        ['Valid from', when(c.not_before as string)],
        ['Valid until', when(c.not_after as string)],
        ['State', html`${badge(String(c.state))} ${String(c.days_remaining)} days left`],
        [
          'Key',
          `${String(c.key_algorithm)} ${String(c.key_size)}${c.key_curve ? ` ${String(c.key_curve)}` : ''}`,
        ],
        ['Signature algorithm', String(c.signature_algorithm)],
        [
          'Private key',
          c.has_private_key
            ? c.private_key_matches
              ? 'stored, matches'
              : html`<strong>stored, does not match</strong>`
            : 'not stored',
        ],
        ['Key usage', list(c.key_usage)],
        ['Extended key usage', list(c.extended_key_usage)],
        ['Alternative names', list(c.subject_alt_names)],
        ['CA', Boolean(c.is_ca)],
        ['Self-signed', Boolean(c.self_signed)],
        ['SHA-1', html`<code>${String(c.fingerprint_sha1)}</code>`],
        ['SHA-256', html`<code>${String(c.fingerprint_sha256)}</code>`],
      ])}
      ${await usageSection(deps, Number(c.id))} ${await rolloverSection(deps, ui, request, reply, c)}
      <form method="post" action="${base}/${id}" class="record-form" novalidate>
        ${csrfInput(ui.csrf)} ${formErrors(form, ['description'])}
        ${field({ name: 'description', label: 'Description', kind: 'textarea', value: c.description }, form)}
        <button type="submit">Save</button>
      </form>
      <form method="post" action="${base}/${id}/delete" class="danger-zone">
        ${csrfInput(ui.csrf)} <button type="submit" class="danger">Delete certificate</button>
      </form>`;
    return sendPage(
      reply,
      ui,
      {
        title: `Certificate ${certificateName(c)}`,
        body,
        notices: [
          ...(saved ? [{ kind: 'ok' as const, text: savedText[saved] ?? 'Saved.' }] : []),
          ...notices,
        ],
      },
      status,
    );
  };

  registerCertificateGeneratePages(app, deps);
  registerRolloverPage(app, deps, (request, reply, status, text) =>
    detail(request, reply, emptyForm, status, [{ kind: 'error', text }]),
  );
  app.get(`${base}/:id`, (request, reply) => detail(request, reply, emptyForm));

  app.post(`${base}/:id`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params as { id: string };
    const fields = bodyFields(request);
    const body = { description: fields.description ?? '' };
    const saved = await callApi(deps, ui, request, reply, 'PUT', '/certificates/:id', {
      params: { id },
      body,
    });
    if (saved.ok) return seeOther(reply, `${base}/${id}?saved=1`);
    return detail(request, reply, { values: fields, errors: saved.error.details ?? {} }, saved.error.status);
  });

  app.post(`${base}/:id/delete`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params as { id: string };
    const removed = await callApi(deps, ui, request, reply, 'DELETE', '/certificates/:id', {
      params: { id },
    });
    if (removed.ok) return seeOther(reply, base);
    return detail(request, reply, emptyForm, removed.error.status, [
      { kind: 'error', text: refusal(removed.error) },
    ]);
  });

  app.get(`${base}/:id/download`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params as { id: string };
    await mustCall(deps, ui, request, reply, 'GET', '/certificates/:id/download', {
      params: { id },
      query: queryOf(request),
    });
    return reply;
  });
}
