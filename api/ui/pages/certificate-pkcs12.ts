/**
 * On a certificate's page with its key: download the key and certificate as a PKCS#12 file,
 * protected by a password typed twice, to take them to another install (or to OpenAS2,
 * mendelson, Windows, Java). Administrators only, as the API route is; the password goes to the
 * API in the form's body and nowhere else.
 */
import type { FastifyInstance } from 'fastify';
import { pkcs12PasswordMin } from '../../schemas/certificate-pkcs12.js';
import { html, type Html } from '../html.js';
import { uiPrefix } from '../layout.js';
import { csrfInput, field, formErrors, type FormState } from '../form.js';
import { openPage, type Answer, type PageRequest, type PathOf } from '../components/index.js';
import type { UiDeps } from '../components/request-context.js';

const base = `${uiPrefix}/certificates`;

export function pkcs12Section(p: PageRequest, id: string, hasKey: boolean, form: FormState): Html {
  if (!hasKey) return html``;
  const heading = html`<h2 id="pkcs12-heading">Move the key to another install</h2>`;
  if (p.ui.user.role !== 'admin') {
    return html`<section aria-labelledby="pkcs12-heading">
      ${heading}
      <p class="hint">An administrator can download this key with its certificate as a PKCS#12 file.</p>
    </section>`;
  }
  return html`<section aria-labelledby="pkcs12-heading">
    ${heading}
    <p class="hint">
      The key with its certificate as one PKCS#12 file (.p12), encrypted with the password you choose here:
      import it on the other pier (Certificates, Upload) or in OpenAS2, mendelson, Windows or Java. Anyone
      with the file and its password can sign as you: send the password another way than the file.
    </p>
    <form method="post" action="${base}/${id}/pkcs12" class="record-form" novalidate>
      ${csrfInput(p.ui.csrf)} ${formErrors(form, ['password', 'password_again'])}
      ${field(
        {
          name: 'password',
          id: 'p12-password',
          label: 'Password for the file',
          kind: 'password',
          hint: `At least ${pkcs12PasswordMin} characters; not stored anywhere`,
          required: true,
        },
        form,
      )}
      ${field(
        {
          name: 'password_again',
          id: 'p12-password-again',
          label: 'The password again',
          kind: 'password',
          required: true,
        },
        form,
      )}
      <button type="submit">Download key and certificate (.p12)</button>
    </form>
  </section>`;
}

/** The form's answer: the file, or the certificate's page again with what to fix (never the password). */
export function registerPkcs12Download(
  app: FastifyInstance,
  deps: UiDeps,
  detail: (p: PageRequest<PathOf<'id'>>, form: FormState, answer: Answer) => Promise<unknown>,
): void {
  app.post<PathOf<'id'>>(`${base}/:id/pkcs12`, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const fields = p.fields;
    const password = typeof fields.password === 'string' ? fields.password : '';
    const again = typeof fields.password_again === 'string' ? fields.password_again : '';
    if (password !== again) {
      const form = { values: {}, errors: { password_again: 'Is not the same password' } };
      return detail(p, form, { status: 400 });
    }
    const answer = await p.call('POST', '/certificates/:id/pkcs12', {
      params: { id: p.params.id },
      body: { password },
    });
    if (answer.ok) return reply;
    const details = (answer.error.details ?? {}) as Record<string, unknown>;
    const errors = Object.keys(details).length > 0 ? details : { _form: answer.error.message };
    return detail(p, { values: {}, errors }, { status: answer.error.status });
  });
}
