/**
 * Pages for a record resource of the API (list with filters and paging, create form,
 * detail with update form, delete), drawn from the API route's own schemas and run through
 * the API route itself, so what the form accepts and refuses is what the API does.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteGenericInterface } from 'fastify';
import type { z } from 'zod';
import { html, type Html } from '../html.js';
import { uiPrefix } from '../layout.js';
import {
  emptyForm,
  field,
  fieldSections,
  formErrors,
  formToBody,
  kindOf,
  shapeOf,
  specFromSchema,
  storedValue,
  csrfInput,
  type FieldSpec,
  type FormState,
} from '../form.js';
import { pager, refusal, table, type Column, type PageInfo } from '../components/data.js';
import {
  bodyFields,
  callApi,
  mustCall,
  queryOf,
  sendPage,
  seeOther,
  uiContext,
  type UiDeps,
} from '../components/request-context.js';
import type { UiRequestContext } from '../layout.js';
import type { ApiError } from '../../errors.js';
import type { PathOf } from '../components/page-frame.js';
import type { AnswerOf, ListRow } from '../api-answers.js';
import { keptField } from '../kept-secrets.js';
import { asPicker, loadChoices, pickerOf } from '../pickers.js';

/** A record of resource `P` as its detail route's schema types it: `GET /partners/:id` answers a partner. */
export type CrudRecord<P extends string> = AnswerOf<'GET', `${P}/:id`>;

/** Draws a page with its form (as sent, when refused), the status, and a refusal in words. */
type DrawPage<Route extends RouteGenericInterface = RouteGenericInterface> = (
  request: FastifyRequest<Route>,
  reply: FastifyReply,
  form: FormState,
  status?: number,
  problem?: Html,
) => Promise<unknown>;

/** A part of a record's detail page, drawn from the record. */
export type DetailPart<P extends string> = (
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  row: CrudRecord<P>,
) => Promise<Html>;

/**
 * The pages of resource `P` (`/partners`), whose list route `L` answers its rows under `K`; the
 * columns read the list's rows and the detail parts the record, each as its route's schema types it.
 */
export interface CrudSpec<P extends string, K extends string, L extends string = P> {
  /** API path of the collection, also the UI path below /ui: `/partners`. */
  path: P;
  title: string;
  singular: string;
  listKey: K;
  /** API path the list reads, when not `path` (the partners' standing, GET /partner-status). */
  listPath?: L;
  columns: Column<ListRow<L, K>>[];
  /** Query filters of the list (docs/api/conventions.md#lists), drawn above it. */
  filters?: FieldSpec[];
  /** Fields of the create and update forms, in order; default: every property of the schema. */
  fields?: string[];
  /** Fields the update form leaves out (they cannot change). */
  fixedOnUpdate?: string[];
  /** Labels and hints beyond what the schema says. */
  fieldOverrides?: Record<string, Partial<FieldSpec>>;
  labelOf(row: CrudRecord<P>): string;
  /** What the detail page shows above the record's form (a partner's standing). */
  detailLead?: DetailPart<P>;
  /** More sections of the detail page (an AS2 profile of a partner). */
  detailExtra?: DetailPart<P>;
  /** Text above the list. */
  intro?: string;
  /**
   * Write-only fields (a client secret): never filled in, shown as set or not set, and left
   * out of the body when blank, so an update keeps the stored value.
   */
  writeOnly?: string[];
  /** Which write-only fields the record has stored (the API's record never says). */
  secretsSet?(deps: UiDeps, row: CrudRecord<P>): Promise<string[]>;
  /** Reference fields drawn as pickers (api/ui/pickers.ts), by the form's kind. */
  pickers?: 'route' | 'service-account';
}

/** The reference fields of a form as pickers, with their choices loaded once for the page. */
async function withPickers(
  deps: UiDeps,
  ui: UiRequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  spec: { pickers?: CrudSpec<string, string>['pickers'] },
  fields: FieldSpec[],
  form: FormState,
): Promise<FieldSpec[]> {
  const context = spec.pickers;
  if (!context) return fields;
  const choices = await loadChoices(
    deps,
    ui,
    request,
    reply,
    context === 'route' ? { instances: true, parties: true } : { issuers: true },
  );
  return fields.map((f) => {
    const kind = pickerOf(f.name, context);
    return kind ? asPicker(f, kind, choices, form.values[f.name] ?? f.value) : f;
  });
}

/** The hidden ticket of write-only values kept from a refused submission (api/ui/kept-secrets.ts). */
function keptInput(form: FormState): Html {
  const ticket = (form as FormState & { ticket?: string }).ticket;
  return ticket ? html`<input type="hidden" name="${keptField}" value="${ticket}" />` : html``;
}

/** The state of a refused form: what was entered, the API's messages, and the kept secrets. */
export function refusedForm(
  deps: UiDeps,
  ui: UiRequestContext,
  fields: Record<string, string | string[]>,
  errors: Record<string, unknown>,
  writeOnly: readonly string[],
): FormState & { ticket?: string } {
  const kept = deps.kept.keep(ui.csrf, fields, writeOnly);
  const values = Object.fromEntries(Object.entries(fields).filter(([k]) => !writeOnly.includes(k)));
  return kept ? { values, errors, kept: kept.names, ticket: kept.ticket } : { values, errors };
}

type FormPart = Pick<CrudSpec<string, string>, 'fields' | 'fieldOverrides' | 'writeOnly'>;

function formFields(schema: z.ZodType | undefined, spec: FormPart, leaveOut: readonly string[] = []) {
  const shape = shapeOf(schema);
  const names = spec.fields ?? Object.keys(shape);
  return names
    .filter((n) => n in shape && !leaveOut.includes(n))
    .filter((n) => !['never', 'unknown'].includes(kindOf(shape[n])) && n !== 'id')
    .map((n): FieldSpec => {
      const made = { ...specFromSchema(n, shape[n]!), ...spec.fieldOverrides?.[n] };
      // A write-only value is typed, never shown: no default or stored value in the page.
      return spec.writeOnly?.includes(n) ? { ...made, kind: 'password', value: undefined } : made;
    });
}

/**
 * A list answer read by its key. The list route is a type parameter here, which TypeScript cannot
 * resolve to its schema: the spec's types (ListRow of the same route and key) say what the rows are.
 */
function listRows<L extends string, K extends string>(answer: unknown, key: K) {
  const list = answer as PageInfo & { [R in K]: ListRow<L, K>[] };
  return { rows: list[key], page: list };
}

export function registerCrudPages<P extends string, K extends string, L extends string = P>(
  app: FastifyInstance,
  deps: UiDeps,
  spec: CrudSpec<P, K, L>,
): void {
  const uiPath = `${uiPrefix}${spec.path}`;
  const createSchema = deps.api.bodySchema('POST', spec.path);
  const updateSchema = deps.api.bodySchema('PUT', `${spec.path}/:id`);

  const listPage: DrawPage = async (request, reply, form, status = 200, notice) => {
    const ui = uiContext(deps, request, reply);
    const query = queryOf(request);
    const listed = await callApi(deps, ui, request, reply, 'GET', spec.listPath ?? spec.path, { query });
    const filters = spec.filters
      ? html`<form
          class="filters"
          method="get"
          action="${uiPath}"
          role="search"
          aria-label="Filter ${spec.title.toLowerCase()}"
        >
          ${spec.filters.map((f) => field({ ...f, value: query[f.name] }, { values: {}, errors: listed.ok ? {} : (listed.error.details ?? {}) }))}
          <button type="submit">Filter</button>
        </form>`
      : '';
    let list: Html;
    if (listed.ok) {
      const { rows, page } = listRows<L, K>(listed.data, spec.listKey);
      list = html`${table(spec.title, spec.columns, rows)}${pager(uiPath, query, page)}`;
    } else {
      list = html`<div class="alert alert-error" role="alert">${refusal(listed.error)}</div>`;
    }
    const fields = await withPickers(deps, ui, request, reply, spec, formFields(createSchema, spec), form);
    const create = createSchema
      ? html`<section aria-labelledby="new-heading">
          <h2 id="new-heading">New ${spec.singular}</h2>
          <form method="post" action="${uiPath}" class="record-form" novalidate>
            ${csrfInput(ui.csrf)} ${keptInput(form)}
            ${formErrors(
              form,
              fields.map((f) => f.name),
            )}
            ${fieldSections(fields, form)}
            <button type="submit">Create ${spec.singular}</button>
          </form>
        </section>`
      : '';
    return sendPage(
      reply,
      ui,
      {
        title: spec.title,
        notices: notice ? [{ kind: 'error', text: notice }] : [],
        body: html`${spec.intro ? html`<p class="intro">${spec.intro}</p>` : ''}${filters}${list}${create}`,
      },
      status,
    );
  };

  app.get(uiPath, (request, reply) => listPage(request, reply, emptyForm));

  /**
   * A submitted record form: its fields with the write-only values kept from a refused try, and
   * what a refusal draws the page again with (the form as sent with the messages beside its
   * fields, the status, and the refusal in words unless it only says which fields are wrong).
   */
  const submitted = (request: FastifyRequest, ui: UiRequestContext) => {
    const writeOnly = spec.writeOnly ?? [];
    const fields = deps.kept.restore(ui.csrf, bodyFields(request), writeOnly);
    const refused = (error: ApiError) =>
      [
        refusedForm(deps, ui, fields, error.details ?? {}, writeOnly),
        error.status,
        error.code === 'INVALID_INPUT' ? undefined : refusal(error),
      ] as const;
    return { fields, writeOnly, refused };
  };

  app.post(uiPath, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const form = submitted(request, ui);
    const body = formToBody(createSchema, form.fields, form.writeOnly, { creating: true });
    const made = await callApi(deps, ui, request, reply, 'POST', spec.path, { body });
    if (made.ok) return seeOther(reply, `${uiPath}/${String(storedValue(made.data, 'id'))}?saved=created`);
    return listPage(request, reply, ...form.refused(made.error));
  });

  const detailPage: DrawPage<PathOf<'id'>> = async (request, reply, form, status = 200, problem) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params;
    const row = await mustCall(deps, ui, request, reply, 'GET', `${spec.path}/:id`, { params: { id } });
    const secretsSet = spec.secretsSet ? await spec.secretsSet(deps, row) : [];
    const fields = await withPickers(
      deps,
      ui,
      request,
      reply,
      spec,
      formFields(updateSchema, spec, spec.fixedOnUpdate).map((f) =>
        spec.writeOnly?.includes(f.name)
          ? { ...f, secretSet: secretsSet.includes(f.name) }
          : { ...f, value: storedValue(row, f.name) },
      ),
      form,
    );
    const saved = queryOf(request).saved;
    const lead = spec.detailLead ? await spec.detailLead(deps, ui, request, reply, row) : '';
    const extra = spec.detailExtra ? await spec.detailExtra(deps, ui, request, reply, row) : '';
    return sendPage(
      reply,
      ui,
      {
        title: `${spec.singular[0]!.toUpperCase()}${spec.singular.slice(1)} ${spec.labelOf(row)}`,
        notices: [
          ...(saved ? [{ kind: 'ok' as const, text: saved === 'created' ? 'Created.' : 'Saved.' }] : []),
          ...(problem ? [{ kind: 'error' as const, text: problem }] : []),
        ],
        body: html`<p><a href="${uiPath}">All ${spec.title.toLowerCase()}</a></p>
          ${lead}
          ${
            updateSchema
              ? html`<form method="post" action="${uiPath}/${id}" class="record-form" novalidate>
                  ${csrfInput(ui.csrf)} ${keptInput(form)}
                  ${formErrors(
                    form,
                    fields.map((f) => f.name),
                  )}
                  ${fieldSections(fields, form)}
                  <button type="submit">Save</button>
                </form>`
              : ''
          }
          ${extra}
          ${
            deps.api.has('DELETE', `${spec.path}/:id`)
              ? html`<form method="post" action="${uiPath}/${id}/delete" class="danger-zone">
                  ${csrfInput(ui.csrf)}
                  <button type="submit" class="danger">Delete ${spec.singular}</button>
                </form>`
              : ''
          }`,
      },
      status,
    );
  };

  app.get<PathOf<'id'>>(`${uiPath}/:id`, (request, reply) => detailPage(request, reply, emptyForm));

  app.post<PathOf<'id'>>(`${uiPath}/:id`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params;
    const form = submitted(request, ui);
    const body = formToBody(updateSchema, form.fields, form.writeOnly);
    const saved = await callApi(deps, ui, request, reply, 'PUT', `${spec.path}/:id`, {
      params: { id },
      body,
    });
    if (saved.ok) return seeOther(reply, `${uiPath}/${id}?saved=1`);
    return detailPage(request, reply, ...form.refused(saved.error));
  });

  app.post<PathOf<'id'>>(`${uiPath}/:id/delete`, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const { id } = request.params;
    const removed = await callApi(deps, ui, request, reply, 'DELETE', `${spec.path}/:id`, { params: { id } });
    if (removed.ok) return seeOther(reply, uiPath);
    return detailPage(request, reply, emptyForm, removed.error.status, refusal(removed.error));
  });
}
