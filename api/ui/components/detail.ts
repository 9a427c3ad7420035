/**
 * The detail page's parts: the way back to the list, a titled section, and the buttons that act
 * on the record (each its own POST form with the CSRF token; a dangerous one drawn apart).
 */
import { csrfInput } from '../form.js';
import { html, type Html } from '../html.js';

/** The link back to the list a detail page belongs to. */
export function backLink(path: string, words: string): Html {
  return html`<p><a href="${path}">${words}</a></p>`;
}

/** A section named by its heading (a landmark for screen readers). */
export function section(id: string, heading: string, content: Html | string): Html {
  return html`<section aria-labelledby="${id}-heading">
    <h2 id="${id}-heading">${heading}</h2>
    ${content}
  </section>`;
}

/** One button that posts to an action of the record. */
export function actionButton(
  csrf: string,
  action: string,
  words: string,
  options: { danger?: boolean; fields?: Record<string, string> } = {},
): Html {
  return html`<form method="post" action="${action}" class="${options.danger ? 'danger-zone' : 'actions'}">
    ${csrfInput(csrf)}
    ${Object.entries(options.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
    <button type="submit" ${options.danger ? html`class="danger"` : ''}>${words}</button>
  </form>`;
}
