/**
 * Making a key pair in the web UI: the generate form (RSA or EC, self-signed certificate or
 * CSR), the page of a request waiting for its CA (CSR shown and downloadable, the CA's
 * certificate pasted to complete it), and the list of such requests. Every submission runs
 * POST /certificates/generate or /certificate-requests/… as the API does, so both refuse the
 * same bodies with the same messages.
 */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { defaultValidDays, maxValidDays, type KeyChoice } from '../../schemas/certificate-generate.js';
import { html, type Html } from '../html.js';
import { uiPrefix, type Notice } from '../layout.js';
import { csrfInput, emptyForm, field, formErrors, type FormState } from '../form.js';
import { actionButton, backLink, facts, openPage, refusedForm } from '../components/index.js';
import { refusedState } from '../components/index.js';
import { registerDelete } from '../components/index.js';
import {
  table,
  when,
  type Answer,
  type ListRow,
  type PageRequest,
  type PathOf,
} from '../components/index.js';
import type { UiDeps } from '../components/request-context.js';

/** A request waiting for its CA, as GET /certificate-requests/:id and the list type it. */
type CertificateRequest = ListRow<'/certificate-requests', 'certificate_requests'>;
const base = `${uiPrefix}/certificates`;

/** The key choices of the form, each the API's `key` object. */
export const keyChoices: { value: string; label: string; key: z.input<typeof KeyChoice> }[] = [
  { value: 'rsa-2048', label: 'RSA 2048 bits (accepted everywhere)', key: { algorithm: 'rsa', bits: 2048 } },
  { value: 'rsa-3072', label: 'RSA 3072 bits', key: { algorithm: 'rsa', bits: 3072 } },
  { value: 'rsa-4096', label: 'RSA 4096 bits (slowest)', key: { algorithm: 'rsa', bits: 4096 } },
  {
    value: 'ec-P-256',
    label: 'EC P-256 (small and fast; the partner must support EC)',
    key: { algorithm: 'ec', curve: 'P-256' },
  },
  { value: 'ec-P-384', label: 'EC P-384', key: { algorithm: 'ec', curve: 'P-384' } },
];

const subjectFields = [
  {
    name: 'common_name',
    label: 'Common name',
    hint: 'The name partners know this key by, e.g. as2.example.com',
    required: true,
  },
  { name: 'organization', label: 'Organization', hint: 'Optional' },
  { name: 'organizational_unit', label: 'Organizational unit', hint: 'Optional' },
  { name: 'country', label: 'Country', hint: 'Optional: two capital letters, e.g. DE' },
  { name: 'email', label: 'E-mail address', hint: 'Optional' },
] as const;

type SubjectField = (typeof subjectFields)[number]['name'];

/**
 * The body of POST /certificates/generate as the form sends it: the API's GenerateBody, or what the
 * API refuses in its own words (a key it does not know, days that are not a number).
 */
interface GenerateForm {
  name: string;
  key: z.input<typeof KeyChoice> | { algorithm: string };
  subject: Partial<Record<SubjectField, string>>;
  valid_days?: number | string;
  output: string;
}

/** The API body from the form's fields; blank optional fields are left out, as a person means. */
export function generateBodyOf(fields: Record<string, string | string[]>): GenerateForm {
  const text = (name: string) => {
    const v = fields[name];
    return typeof v === 'string' ? v.trim() : '';
  };
  const subject: GenerateForm['subject'] = {};
  for (const f of subjectFields)
    if (text(`subject.${f.name}`) !== '') subject[f.name] = text(`subject.${f.name}`);
  const key = keyChoices.find((c) => c.value === text('key'))?.key ?? { algorithm: text('key') };
  const days = text('valid_days');
  return {
    name: text('name'),
    key,
    subject,
    ...(days === '' ? {} : { valid_days: /^[0-9]+$/.test(days) ? Number(days) : days }),
    output: text('output'),
  };
}

/** The API's details keyed as the form's fields are (`key.bits` belongs to the key choice). */
function formErrorsOf(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) {
    const at = k.startsWith('key.') ? 'key' : k;
    if (!(at in out)) out[at] = v;
  }
  return out;
}

function generateForm(csrf: string, state: FormState): Html {
  const shown = ['name', 'key', 'output', 'valid_days', ...subjectFields.map((f) => `subject.${f.name}`)];
  return html`<form method="post" action="${base}/generate" class="record-form" novalidate>
    ${csrfInput(csrf)} ${formErrors(state, shown)}
    ${field({ name: 'name', label: 'Description', hint: 'How the certificate is listed, e.g. "Acme AS2 2027"', required: true }, state)}
    <fieldset>
      <legend>What to make</legend>
      ${field(
        {
          name: 'output',
          label: 'Certificate',
          kind: 'select',
          value: 'self-signed',
          options: [
            { value: 'self-signed', label: 'Self-signed certificate (most AS2 partners accept one)' },
            {
              value: 'csr',
              label:
                "Certificate signing request, to send to a CA; you complete it with the CA's certificate",
            },
          ],
        },
        state,
      )}
      ${field({ name: 'key', label: 'Key', kind: 'select', value: 'rsa-2048', options: keyChoices }, state)}
      ${field({ name: 'valid_days', label: 'Valid for (days)', kind: 'number', value: String(defaultValidDays), hint: `Self-signed only; 1 to ${maxValidDays}` }, state)}
    </fieldset>
    <fieldset>
      <legend>Subject</legend>
      ${subjectFields.map((f) => field({ ...f, name: `subject.${f.name}`, id: `f-subject-${f.name}` }, state))}
    </fieldset>
    <button type="submit">Generate</button>
  </form>`;
}

async function generatePage(p: PageRequest, state: FormState, answer: Answer = {}) {
  const body = html`${backLink(base, 'All certificates')}
    <p class="intro">
      pier makes the key pair and keeps the private key; it is never shown or downloaded. Partners get the
      certificate (PEM or DER) from the certificate's page.
    </p>
    ${generateForm(p.ui.csrf, state)}`;
  return p.send({ title: 'Generate a key pair', body }, answer);
}

function requestsTable(rows: CertificateRequest[]): Html {
  return table(
    "Certificate requests waiting for the CA's certificate",
    [
      {
        label: 'Request',
        cell: (r: CertificateRequest) => html`<a href="${base}/requests/${r.id}">${r.description}</a>`,
      },
      { label: 'Subject', cell: (r) => r.subject },
      { label: 'Key', cell: (r) => keyText(r) },
      { label: 'Made', cell: (r) => when(r.created_at) },
    ],
    rows,
    'No requests are waiting.',
  );
}

function keyText(r: CertificateRequest): string {
  return r.key_algorithm === 'EC' ? `EC ${r.key_size} (${r.key_curve})` : `RSA ${r.key_size}`;
}

/** The section of the certificates page listing requests waiting for their CA (empty: nothing shown). */
export async function pendingRequestsSection(p: PageRequest): Promise<Html> {
  const listed = await p.call('GET', '/certificate-requests', { query: { limit: '100' } });
  if (!listed.ok || listed.data.certificate_requests.length === 0) return html``;
  return html`<section aria-labelledby="requests-heading">
    <h2 id="requests-heading">Waiting for a CA</h2>
    ${requestsTable(listed.data.certificate_requests)}
  </section>`;
}

async function requestPage(p: PageRequest<PathOf<'id'>>, state: FormState, answer: Answer = {}) {
  const id = p.params.id;
  const r = await p.must('GET', '/certificate-requests/:id', { params: { id } });
  const made = p.query.made;
  const body = html`${backLink(base, 'All certificates')}
    ${facts([
      ['State', "Waiting for the CA's certificate"],
      ['Subject', r.subject],
      ['Key', keyText(r)],
      ['Signature algorithm', r.signature_algorithm],
      ['Private key', 'stored (never shown)'],
      ['Made', when(r.created_at)],
    ])}
    <section aria-labelledby="csr-heading">
      <h2 id="csr-heading">1. Send the request to your CA</h2>
      <p><a href="${base}/requests/${id}/csr" download>Download the CSR (PEM)</a>, or copy it:</p>
      <pre class="pem" tabindex="0" aria-label="Certificate signing request, PEM">${r.csr_pem}</pre>
    </section>
    <section aria-labelledby="complete-heading">
      <h2 id="complete-heading">2. Paste the certificate the CA sends back</h2>
      <form method="post" action="${base}/requests/${id}/certificate" class="record-form" novalidate>
        ${csrfInput(p.ui.csrf)} ${formErrors(state, ['certificate', 'description'])}
        ${field({ name: 'certificate', label: "CA's certificate (PEM)", kind: 'textarea', required: true, hint: 'The chain may follow it; only the certificate of this key is stored' }, state)}
        ${field({ name: 'description', label: 'Description', value: r.description }, state)}
        <button type="submit">Store the certificate with its key</button>
      </form>
    </section>
    ${actionButton(p.ui.csrf, `${base}/requests/${id}/delete`, 'Delete request and key', { danger: true })}`;
  const notices: Notice[] = made
    ? [{ kind: 'ok', text: 'Key pair and request made. Send the request to your CA.' }]
    : [];
  return p.send({ title: `Certificate request ${r.description}`, body, notices }, answer);
}

export function registerCertificateGeneratePages(app: FastifyInstance, deps: UiDeps): void {
  app.get(`${base}/generate`, (request, reply) => generatePage(openPage(deps, request, reply), emptyForm));

  app.post(`${base}/generate`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const fields = p.fields;
    const made = await p.call('POST', '/certificates/generate', { body: generateBodyOf(fields) });
    if (made.ok) {
      return made.data.state === 'awaiting_certificate'
        ? p.redirect(`${base}/requests/${made.data.id}?made=1`)
        : p.redirect(`${base}/${made.data.id}?saved=generated`);
    }
    const state = { values: fields, errors: formErrorsOf(made.error.details ?? {}) };
    return generatePage(p, state, refusedForm(made.error));
  });

  app.get<PathOf<'id'>>(`${base}/requests/:id`, (request, reply) =>
    requestPage(openPage(deps, request, reply), emptyForm),
  );

  app.get<PathOf<'id'>>(`${base}/requests/:id/csr`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const id = p.params.id;
    await p.must('GET', '/certificate-requests/:id/csr', { params: { id } });
    return reply;
  });

  app.post<PathOf<'id'>>(`${base}/requests/:id/certificate`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const id = p.params.id;
    const fields = p.fields;
    const description = typeof fields.description === 'string' ? fields.description.trim() : '';
    const done = await p.call('POST', '/certificate-requests/:id/certificate', {
      params: { id },
      body: { certificate: fields.certificate ?? '', ...(description ? { description } : {}) },
    });
    if (done.ok) return p.redirect(`${base}/${done.data.id}?saved=completed`);
    return requestPage(p, refusedState(done.error, fields), refusedForm(done.error));
  });

  registerDelete(app, deps, `${base}/requests/:id`, '/certificate-requests/:id', base, (p, answer) =>
    requestPage(p, emptyForm, answer),
  );
}
