/**
 * Certificates: the list with the filters of docs/api/conventions.md#lists and expiry state, upload with the
 * import-token flow (choose among what the file holds), detail with its facts, description
 * edit, where it is used, delete (409 CERTIFICATE_IN_USE in words), PEM or DER export, a
 * warning when the stored key does not belong to the certificate, and rollover planning.
 * Generating keys and CSRs is in certificate-generate.ts.
 */
import type { FastifyInstance } from 'fastify';
import { readUploadForm } from '../../resources/certificates/form.js';
import { uploadCertificates } from '../../resources/certificates/upload.js';
import { toApiError } from '../../plugins/error-handler.js';
import { html, type Html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import { csrfInput, emptyForm, field, formErrors, type FormState } from '../form.js';
import { actionButton, badge, facts, listWithFilters, openPage, refusal } from '../components/index.js';
import { registerDelete } from '../components/index.js';
import { refused } from '../components/index.js';
import {
  refusedState,
  when,
  type Answer,
  type AnswerOf,
  type PageRequest,
  type PathOf,
} from '../components/index.js';
import type { z } from 'zod';
import type { UploadFindings } from '../../schemas/certificate.js';
import type { UiDeps } from '../components/request-context.js';
import { usageSection } from './certificate-usage.js';
import { pendingRequestsSection, registerCertificateGeneratePages } from './certificate-generate.js';
import { registerRolloverPage, rolloverSection } from './certificate-rollover.js';
import { pkcs12Section, registerPkcs12Download } from './certificate-pkcs12.js';

type Certificate = AnswerOf<'GET', '/certificates/:id'>;
type Findings = z.output<typeof UploadFindings>;
const base = `${uiPrefix}/certificates`;

/** What a certificate's page says after the change that led to it. */
const savedText: Record<string, string> = {
  uploaded: 'Saved.',
  generated: 'Key pair and self-signed certificate made. Export the certificate for your partners below.',
  completed: "The CA's certificate is stored with the request's key.",
  rollover: 'Added beside the current certificates: see where it is used.',
};

function certificateName(r: Certificate): string {
  return r.description || r.common_name || r.subject || String(r.id);
}

const certificateColumns = [
  {
    label: 'Certificate',
    cell: (r: Certificate) => html`<a href="${base}/${r.id}">${certificateName(r)}</a>`,
  },
  { label: 'Subject', cell: (r: Certificate) => r.subject },
  { label: 'State', cell: (r: Certificate) => badge(r.state) },
  { label: 'Days left', cell: (r: Certificate) => r.days_remaining },
  {
    label: 'Key',
    cell: (r: Certificate) =>
      r.has_private_key ? (r.private_key_matches ? 'yes, matches' : badge('does not match', 'error')) : 'no',
  },
  { label: 'Expires', cell: (r: Certificate) => when(r.not_after) },
];

const certificateFilters = [
  { name: 'q', label: 'Search', hint: 'Description, names, serial, or the start of the SHA-256 fingerprint' },
  {
    name: 'status',
    label: 'State',
    kind: 'select' as const,
    options: [{ value: '', label: 'any' }, 'valid', 'expiring', 'expired'],
  },
  {
    name: 'key',
    label: 'Private key',
    kind: 'select' as const,
    options: [{ value: '', label: 'any' }, 'present', 'absent'],
  },
];

async function listPage(p: PageRequest, upload: FormState, answer: Answer = {}) {
  const list = await listWithFilters(p, {
    api: '/certificates',
    path: base,
    listKey: 'certificates',
    caption: 'Certificates',
    columns: certificateColumns,
    empty: 'No certificates match.',
    filterLabel: 'Filter certificates',
    filters: certificateFilters,
  });
  const body = html`<p class="actions"><a class="button" href="${base}/generate">Generate a key pair</a></p>
    ${list.body} ${await pendingRequestsSection(p)}
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
  return p.send({ title: 'Certificates', body }, answer);
}

function importChoice(csrf: string, findings: Findings): Html {
  const found = findings.found;
  return html`<form method="post" action="${base}/import" class="record-form">
    ${csrfInput(csrf)}
    <input type="hidden" name="import_token" value="${findings.import_token}" />
    <p>
      The file holds ${found.certificates.length} certificate(s) and ${found.keys.length} key(s). Choose what
      to store (the choice is valid until ${when(findings.expires_at)}).
    </p>
    ${
      findings.notes.length > 0
        ? html`<ul>
            ${findings.notes.map((n) => html`<li>${n}</li>`)}
          </ul>`
        : ''
    }
    ${found.certificates.map(
      (c) =>
        html`<fieldset class="found">
          <legend>${c.subject}</legend>
          ${facts([
            ['Issuer', c.issuer],
            ['Valid until', when(c.not_after)],
            ['State', badge(c.state)],
            ['Private key', c.key_index === null ? 'not in the file' : 'in the file'],
            [
              'Already stored',
              c.existing_id === null
                ? 'no'
                : `yes, certificate ${c.existing_id}${c.adds_private_key ? ' (its key is added)' : ''}`,
            ],
            ['SHA-256', html`<code>${c.fingerprint_sha256}</code>`],
          ])}
          <div class="field field-check">
            <input type="checkbox" id="pick-${c.index}" name="pick" value="${c.index}" />
            <label for="pick-${c.index}">Import this certificate</label>
          </div>
          <div class="field">
            <label for="desc-${c.index}">Description</label>
            <input
              type="text"
              id="desc-${c.index}"
              name="description_${c.index}"
              value="${c.friendly_name || c.common_name}"
            />
          </div>
        </fieldset>`,
    )}
    <button type="submit">Import selected</button>
  </form>`;
}

export function registerCertificatePages(app: FastifyInstance, deps: UiDeps): void {
  app.get(base, (request, reply) => listPage(openPage(deps, request, reply), emptyForm));

  app.post(`${base}/upload`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    try {
      // The API route answers by itself, so the UI runs the same reader and service.
      const answer = await uploadCertificates(deps.ctx, p.ui.user.caller, await readUploadForm(request));
      if ('record' in answer) return p.redirect(`${base}/${answer.record.id}?saved=uploaded`);
      return p.send({
        title: 'Choose certificates to import',
        body: importChoice(p.ui.csrf, answer.findings),
      });
    } catch (error) {
      const known = toApiError(error, request);
      if (!known) throw error;
      const answer = known.code === 'INVALID_INPUT' ? { status: known.status } : refused(known);
      return listPage(p, refusedState(known), answer);
    }
  });

  app.post(`${base}/import`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const fields = p.fields;
    const picks = [fields.pick ?? []].flat();
    const body = {
      import_token: String(fields.import_token ?? ''),
      certificates: picks.map((pick) => {
        const description = fields[`description_${pick}`];
        return {
          index: Number(pick),
          ...(typeof description === 'string' && description !== '' ? { description } : {}),
        };
      }),
    };
    const done = await p.call('POST', '/certificates/import', { body });
    if (done.ok) {
      const ids = done.data.certificates.map((c) => c.id);
      return p.send({
        title: 'Certificates imported',
        notices: [{ kind: 'ok', text: `Imported ${ids.length} certificate(s).` }],
        body: html`<ul>
            ${done.data.certificates.map((c) => html`<li><a href="${base}/${c.id}">${certificateName(c)}</a></li>`)}
          </ul>
          <p><a href="${base}">All certificates</a></p>`,
      });
    }
    return listPage(p, emptyForm, {
      status: done.error.status,
      notices: [
        {
          kind: 'error',
          text: html`${refusal(done.error)}${done.error.details ? html` ${JSON.stringify(done.error.details)}` : ''}`,
        },
      ],
    });
  });

  const detail = async (
    p: PageRequest<PathOf<'id'>>,
    form: FormState,
    answer: Answer = {},
    keyForm: FormState = emptyForm,
  ) => {
    const id = p.params.id;
    const c = await p.must('GET', '/certificates/:id', { params: { id } });
    const saved = p.query.saved;
    const list = (v: readonly string[]) => v.join(', ') || '—';
    const mismatch = c.has_private_key && !c.private_key_matches;
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
        ['Subject', c.subject],
        ['Issuer', c.issuer],
        ['Serial number', html`<code>${c.serial_number}</code>`],
        ['Valid from', when(c.not_before)],
        ['Valid until', when(c.not_after)],
        ['State', html`${badge(c.state)} ${c.days_remaining} days left`],
        ['Key', `${c.key_algorithm} ${c.key_size}${c.key_curve ? ` ${c.key_curve}` : ''}`],
        ['Signature algorithm', c.signature_algorithm],
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
        ['CA', c.is_ca],
        ['Self-signed', c.self_signed],
        ['SHA-1', html`<code>${c.fingerprint_sha1}</code>`],
        ['SHA-256', html`<code>${c.fingerprint_sha256}</code>`],
      ])}
      ${pkcs12Section(p, id, c.has_private_key, keyForm)} ${await usageSection(deps, c.id)}
      ${await rolloverSection(p.deps, p.ui, p.request, p.reply, c)}
      <form method="post" action="${base}/${id}" class="record-form" novalidate>
        ${csrfInput(p.ui.csrf)} ${formErrors(form, ['description'])}
        ${field({ name: 'description', label: 'Description', kind: 'textarea', value: c.description }, form)}
        <button type="submit">Save</button>
      </form>
      ${actionButton(p.ui.csrf, `${base}/${id}/delete`, 'Delete certificate', { danger: true })}`;
    const notices: Notice[] = saved ? [{ kind: 'ok', text: savedText[saved] ?? 'Saved.' }] : [];
    return p.send({ title: `Certificate ${certificateName(c)}`, body, notices }, answer);
  };

  registerCertificateGeneratePages(app, deps);
  registerRolloverPage(app, deps, (request, reply, status, text) =>
    detail(openPage(deps, request, reply), emptyForm, { status, notices: [{ kind: 'error', text }] }),
  );
  registerPkcs12Download(app, deps, (p, keyForm, answer) => detail(p, emptyForm, answer, keyForm));
  app.get<PathOf<'id'>>(`${base}/:id`, (request, reply) => detail(openPage(deps, request, reply), emptyForm));

  app.post<PathOf<'id'>>(`${base}/:id`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const id = p.params.id;
    const fields = p.fields;
    const body = { description: fields.description ?? '' };
    const saved = await p.call('PUT', '/certificates/:id', {
      params: { id },
      body,
    });
    if (saved.ok) return p.redirect(`${base}/${id}?saved=1`);
    return detail(p, refusedState(saved.error, fields), { status: saved.error.status });
  });

  registerDelete(app, deps, `${base}/:id`, '/certificates/:id', base, (p, answer) =>
    detail(p, emptyForm, answer),
  );

  app.get<PathOf<'id'>>(`${base}/:id/download`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const id = p.params.id;
    await p.must('GET', '/certificates/:id/download', {
      params: { id },
      query: p.query,
    });
    return reply;
  });
}
