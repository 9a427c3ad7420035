/** The small pieces a page's data is drawn with: a refusal in words, tables, the pager, times, badges, facts. */
import type { ApiError } from '../../errors.js';
import { html, href, type Html } from '../html.js';

/** A refusal in words: status, code and message, as the API answered. */
export function refusal(error: ApiError): Html {
  return html`<strong>${error.status} ${error.code}</strong>: ${error.message}${detailsList(error)}`;
}

function detailsList(error: ApiError): Html | string {
  if (!error.details || error.code === 'INVALID_INPUT') return '';
  const entries = Object.entries(error.details);
  if (entries.length === 0) return '';
  return html`<ul class="details">
    ${entries.map(([k, v]) => html`<li><strong>${k}</strong>: ${typeof v === 'string' ? v : JSON.stringify(v)}</li>`)}
  </ul>`;
}

export interface Column<T> {
  label: string;
  cell(row: T): Html | string | number | null | undefined;
}

export function table<T>(
  caption: string,
  columns: Column<T>[],
  rows: readonly T[],
  empty = 'Nothing here yet.',
): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  // Focusable so a keyboard can scroll a wide table; a named group, not a landmark region, because
  // the section around it is already the landmark and often has the same name (axe landmark-unique).
  return html`<div class="table-wrap" tabindex="0" role="group" aria-label="${caption}">
    <table>
      <caption class="visually-hidden">
        ${caption}
      </caption>
      <thead>
        <tr>
          ${columns.map((c) => html`<th scope="col">${c.label}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr>
              ${columns.map((c) => html`<td>${c.cell(r)}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export interface PageInfo {
  total: number;
  limit: number;
  offset: number;
  /** The total is the planner's estimate (the messages list beyond its exact count). */
  totalEstimated?: boolean;
}

export function pager(path: string, query: Record<string, string | undefined>, page: PageInfo): Html {
  const { total, limit, offset } = page;
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(offset + limit, total);
  const prev = offset > 0 ? href(path, { ...query, offset: String(Math.max(0, offset - limit)) }) : undefined;
  const next = offset + limit < total ? href(path, { ...query, offset: String(offset + limit) }) : undefined;
  const of = page.totalEstimated ? `about ${total.toLocaleString('en')}` : String(total);
  return html`<nav class="pager" aria-label="Pages">
    <span>${from}–${to} of ${of}</span>
    ${prev ? html`<a href="${prev}" rel="prev">Previous</a>` : ''}
    ${next ? html`<a href="${next}" rel="next">Next</a>` : ''}
  </nav>`;
}

/** A date as the operator reads it: UTC, to the second. */
export function when(value: string | null | undefined): Html | string {
  if (!value) return '—';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  return html`<time datetime="${value}">${d.toISOString().replace('T', ' ').slice(0, 19)}</time>`;
}

export function badge(text: string, tone?: string): Html {
  return html`<span class="badge badge-${tone ?? text.toLowerCase()}">${text}</span>`;
}

export function facts(entries: [string, Html | string | number | boolean | null | undefined][]): Html {
  return html`<dl class="facts">
    ${entries.map(
      ([k, v]) =>
        html`<dt>${k}</dt>
          <dd>
            ${v === null || v === undefined || v === '' ? '—' : typeof v === 'boolean' ? (v ? 'yes' : 'no') : v}
          </dd>`,
    )}
  </dl>`;
}
