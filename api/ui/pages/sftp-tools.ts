/**
 * The SFTP instance page's tools: check the connection (each step with its outcome) and, when
 * the server presents a key that is not the pinned one, show that fingerprint with a button to
 * pin it, for the operator to press once the partner confirmed it (never trust on first use).
 */
import type { FastifyInstance } from 'fastify';
import { html, type Html } from '../html.js';
import { checkSteps, openPage, type AnswerOf, type PageRequest, type PathOf } from '../components/index.js';
import type { UiRequestContext } from '../layout.js';
import { csrfInput } from '../form.js';
import { refusal } from '../components/data.js';
import { type UiDeps } from '../components/request-context.js';
import type { Notice } from '../layout.js';

/** A connection check's answer (the same schema for both types). */
export type SftpCheck = AnswerOf<'POST', '/plugins/configs/sftp-poller/:name/check-connection'>;

export const sftpInstanceTypes = ['sftp-poller', 'sftp-sender'] as const;

export function isSftpType(type: string): boolean {
  return (sftpInstanceTypes as readonly string[]).includes(type);
}

/** The tools section of an SFTP instance's page, with the last check's result when there is one. */
export function sftpTools(ui: UiRequestContext, action: string, checked?: SftpCheck): Html {
  return html`<section aria-labelledby="sftp-tools-heading">
    <h2 id="sftp-tools-heading">Connection and host key</h2>
    <form method="post" action="${action}/check-connection" class="record-form">
      ${csrfInput(ui.csrf)}
      <button type="submit">Check connection</button>
    </form>
    ${checked ? checkResult(ui, action, checked) : ''}
  </section>`;
}

function checkResult(ui: UiRequestContext, action: string, result: SftpCheck): Html {
  const key = result.host_key;
  return html`<div id="check-result">
    <h3>Connection check: ${result.ok ? 'ok' : 'failed'}</h3>
    ${result.problem ? html`<p class="alert alert-error" role="alert">${result.problem}</p>` : ''}
    ${checkSteps(result.steps)}
    ${
      key.presented && !key.matches
        ? html`<div class="host-key" id="host-key">
            <p>
              The server presents the host key <code>${key.presented}</code>${
                key.pinned ? html`, but <code>${key.pinned}</code> is pinned` : ' and none is pinned yet'
              }.
              Pin it only once the partner confirmed this fingerprint (for example from
              <code>ssh-keygen -lf</code> on their server).
            </p>
            <form method="post" action="${action}/pin-host-key" class="record-form">
              ${csrfInput(ui.csrf)}<input type="hidden" name="fingerprint" value="${key.presented}" />
              <button type="submit">Pin ${key.presented}</button>
            </form>
          </div>`
        : ''
    }
  </div>`;
}

/** The routes of the tools; `page` renders the instance page with an extra section or notices. */
export function registerSftpToolRoutes(
  app: FastifyInstance,
  deps: UiDeps,
  base: string,
  page: (
    p: PageRequest,
    instance: { type: string; name: string },
    status: number,
    notices: Notice[],
    extra?: SftpCheck,
  ) => Promise<unknown>,
): void {
  for (const type of sftpInstanceTypes) {
    app.post<PathOf<'name'>>(`${base}/${type}/:name/check-connection`, async (request, reply) => {
      const p = openPage(deps, request, reply);
      const { name } = p.params;
      const checked = await p.call('POST', `/plugins/configs/${type}/:name/check-connection`, {
        params: { name },
        body: {},
      });
      if (!checked.ok)
        return page(p, { type, name }, checked.error.status, [
          { kind: 'error', text: refusal(checked.error) },
        ]);
      return page(p, { type, name }, 200, [], checked.data);
    });
    app.post<PathOf<'name'>>(`${base}/${type}/:name/pin-host-key`, async (request, reply) => {
      const p = openPage(deps, request, reply);
      const { name } = p.params;
      const fingerprint = p.fields.fingerprint;
      const pinned = await p.call('POST', `/plugins/configs/${type}/:name/pin-host-key`, {
        params: { name },
        body: { fingerprint: typeof fingerprint === 'string' ? fingerprint : '' },
      });
      if (pinned.ok) return p.redirect(`${base}/${type}/${name}?saved=1`);
      const why = pinned.error.details?.fingerprint;
      return page(p, { type, name }, pinned.error.status, [
        { kind: 'error', text: typeof why === 'string' ? html`Not pinned: ${why}` : refusal(pinned.error) },
      ]);
    });
  }
}
