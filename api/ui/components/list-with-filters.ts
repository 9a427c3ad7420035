/**
 * The list with filters: a GET form of filters (every filter in the URL, so a search can be
 * bookmarked), the API's list as a table, and the pager. A refused filter shows the API's
 * message beside its field and the refusal in place of the table.
 */
import type { HttpMethod } from '../../http/router.js';
import type { ApiError } from '../../errors.js';
import { field, type FieldSpec, type FormState } from '../form.js';
import { html, type Html } from '../html.js';
import type { ListRow } from '../api-answers.js';
import { pager, table, type Column, type PageInfo } from './data.js';
import type { PageRequest } from './page-frame.js';
import { refusalAlert } from './refusal-summary.js';

/** A list answer: the rows under the list's key, and the page it is. */
type ListAnswer = Record<string, unknown> & PageInfo;

/** A list of route `U` with its rows under `K`, each row typed by the route's schema. */
export interface ListSpec<U extends string = string, K extends string = string> {
  /** The API route of the list: `/audit`. */
  api: U;
  /** The UI path the filter form submits to and the pager links to. */
  path: string;
  /** Where the rows are in the API's answer: `events`. */
  listKey: K;
  /** The table's name for screen readers. */
  caption: string;
  columns: Column<ListRow<U, K>>[];
  /** What the table says when no row matches. */
  empty?: string;
  /** The filter form's name for screen readers; no filter form without it. */
  filterLabel?: string;
  /** The filters: fields, or the form's inside drawn by the page (a search box, folded groups). */
  filters?: readonly FieldSpec[] | ((state: FormState) => Html);
  /** The filter form's button. */
  submit?: string;
  /** After the button: a Clear link. */
  afterSubmit?: Html | string;
  /** Draws the rows instead of the table (a live region). */
  rows?(rows: ListRow<U, K>[], data: ListAnswer): Html;
  /** Between the filters and the rows (a summary of the search). */
  summary?(data: ListAnswer): Html | string;
  method?: HttpMethod;
}

export interface LoadedList {
  /** The filter form and the rows, or the refusal in their place. */
  body: Html;
  /** 200, or the refusal's status. */
  status: number;
  /** The API's answer, when it answered. */
  data?: ListAnswer;
}

/** The filter form alone, with the query's values and the refusal's messages beside its fields. */
export function filterForm<U extends string, K extends string>(
  spec: ListSpec<U, K>,
  state: FormState,
): Html | string {
  if (!spec.filters || !spec.filterLabel) return '';
  const inside =
    typeof spec.filters === 'function'
      ? spec.filters(state)
      : html`${spec.filters.map((f) => field({ ...f, value: undefined }, state))}`;
  return html`<form
    class="filters"
    method="get"
    action="${spec.path}"
    role="search"
    aria-label="${spec.filterLabel}"
  >
    ${inside}
    <button type="submit">${spec.submit ?? 'Filter'}</button>
    ${spec.afterSubmit ?? ''}
  </form>`;
}

/** Calls the list route with the page's query and draws the filters, the rows and the pager. */
export async function listWithFilters<U extends string, K extends string>(
  p: PageRequest,
  spec: ListSpec<U, K>,
): Promise<LoadedList> {
  const listed = await p.call(spec.method ?? 'GET', spec.api, { query: p.query });
  // The route is a type parameter here, which TypeScript cannot resolve to its schema: its answer
  // is a list, whose rows under the key ListRow types by the same route's schema.
  return drawList(p.query, spec, listed.ok ? { ok: true, data: listed.data as ListAnswer } : listed);
}

/** Draws a list the page loaded itself (through a service rather than the route). */
export function drawList<U extends string, K extends string>(
  query: Record<string, string>,
  spec: ListSpec<U, K>,
  listed: { ok: true; data: ListAnswer } | { ok: false; error: ApiError },
): LoadedList {
  const state: FormState = { values: query, errors: listed.ok ? {} : (listed.error.details ?? {}) };
  const filters = filterForm(spec, state);
  if (!listed.ok) return { body: html`${filters}${refusalAlert(listed.error)}`, status: listed.error.status };
  const rows = listed.data[spec.listKey] as ListRow<U, K>[];
  const drawn = spec.rows
    ? spec.rows(rows, listed.data)
    : table(spec.caption, spec.columns, rows, spec.empty);
  return {
    body: html`${filters}${spec.summary ? spec.summary(listed.data) : ''}${drawn}${pager(spec.path, query, listed.data)}`,
    status: 200,
    data: listed.data,
  };
}
