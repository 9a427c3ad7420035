/**
 * HTML forms on top of the API's zod schemas: a submitted form becomes the JSON body an API
 * client would send (numbers, booleans and lists typed by the schema), and each field is
 * drawn with the schema's description as its hint and the API's `details` message beside it.
 */
import type { z } from 'zod';
import { fieldTextOf, sectionTitles, type FieldSection } from '../schemas/field-text.js';
import { html, type Html } from './html.js';
import { csrfField } from './security.js';
import { EdiEnvelopeSettings } from '../schemas/edi-envelope.js';
import {
  envelopeField,
  envelopeName,
  foldEdiFields,
  interchangeIdsField,
  interchangeIdsName,
} from './edi-fields.js';

/**
 * A hidden field naming a multi-select list: its chosen options (repeated names) make the list,
 * and none chosen is the empty list, which a form otherwise could not send.
 */
export const listMarker = '_list';

export type FormFields = Record<string, string | string[]>;

/** The JSON kind a schema takes as input, looking through optional, default and pipes. */
export function kindOf(schema: z.ZodType | undefined): string {
  let s = schema as { _zod?: { def: Record<string, unknown> } } | undefined;
  for (let i = 0; i < 20 && s?._zod; i++) {
    const def = s._zod.def;
    const type = def.type as string;
    if (['optional', 'default', 'nullable', 'readonly', 'catch', 'prefault', 'nonoptional'].includes(type)) {
      s = def.innerType as typeof s;
    } else if (type === 'pipe') {
      s = def.in as typeof s;
    } else {
      return type;
    }
  }
  return 'unknown';
}

/** How a property may be left out: its default, whether it is optional or nullable. */
function presence(schema: z.ZodType | undefined): {
  optional: boolean;
  nullable: boolean;
  default?: unknown;
} {
  const out: { optional: boolean; nullable: boolean; default?: unknown } = {
    optional: false,
    nullable: false,
  };
  let s = schema as { _zod?: { def: Record<string, unknown> } } | undefined;
  for (let i = 0; i < 20 && s?._zod; i++) {
    const def = s._zod.def;
    const type = def.type as string;
    if (type === 'optional') out.optional = true;
    else if (type === 'nullable') out.nullable = true;
    else if (type === 'default' || type === 'prefault') {
      out.optional = true;
      if (!('default' in out)) out.default = def.defaultValue;
    } else if (type !== 'readonly' && type !== 'catch' && type !== 'nonoptional' && type !== 'pipe') break;
    s = (type === 'pipe' ? def.in : def.innerType) as typeof s;
  }
  return out;
}

export function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> {
  const s = schema as { _zod?: { def: { type: string; shape?: Record<string, z.ZodType> } } } | undefined;
  return s?._zod?.def.type === 'object' ? (s._zod.def.shape ?? {}) : {};
}

/** The description nearest the property: its own, else that of the schema it wraps (a default of a described one). */
function descriptionOf(schema: z.ZodType | undefined): string | undefined {
  let s = schema as { description?: string; _zod?: { def: Record<string, unknown> } } | undefined;
  for (let i = 0; i < 20 && s; i++) {
    if (s.description) return s.description;
    const def = s._zod?.def;
    if (!def) return undefined;
    s = (def.type === 'pipe' ? def.in : def.innerType) as typeof s;
  }
  return undefined;
}

function last(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/** The schema of a list's items, looking through optional, default and pipes. */
function elementOf(schema: z.ZodType | undefined): z.ZodType | undefined {
  let s = schema as { _zod?: { def: Record<string, unknown> } } | undefined;
  for (let i = 0; i < 20 && s?._zod; i++) {
    const def = s._zod.def;
    if (def.type === 'array') return def.element as z.ZodType;
    s = (def.type === 'pipe' ? def.in : def.innerType) as typeof s;
  }
  return undefined;
}

/** A list whose items are texts: typed one per line. */
function isTextList(schema: z.ZodType | undefined): boolean {
  return kindOf(schema) === 'array' && kindOf(elementOf(schema)) === 'string';
}

/** A text typed as the JSON kind the schema takes: numbers as numbers, anything else as text. */
function typedItem(schema: z.ZodType | undefined, text: string): unknown {
  const kind = kindOf(schema);
  if ((kind === 'number' || kind === 'int') && /^-?[0-9]+$/.test(text.trim())) return Number(text.trim());
  return text;
}

export interface FormToBodyOptions {
  /**
   * A create form: a blank text the property's own rules refuse, on a property the API lets a
   * body leave out (a route's name, made from the other fields), is left out, as an API client
   * would leave it out. An update form sends the blank, so it is refused rather than ignored.
   */
  creating?: boolean;
}

/**
 * The JSON body a form stands for. A number field left blank is left out (its default or
 * stored value applies); a checkbox sends "true" after a hidden "false"; list and object
 * fields are JSON text (lists of texts one per line); a write-only field left blank keeps the stored secret. A value that
 * is not of its kind is passed on as text, so the schema refuses it as it refuses the API's.
 */
export function formToBody(
  schema: z.ZodType | undefined,
  submitted: FormFields,
  writeOnly: readonly string[] = [],
  options: FormToBodyOptions = {},
): Record<string, unknown> {
  const shape = shapeOf(schema);
  const body: Record<string, unknown> = {};
  // Interchange ids and envelope settings drawn as fields come back as their JSON properties.
  const fields = foldEdiFields(submitted);
  const lists = [fields[listMarker] ?? []].flat();
  for (const [name, value] of Object.entries(fields)) {
    if (name === csrfField || name === listMarker) continue;
    const text = last(value) ?? '';
    const kind = kindOf(shape[name]);
    if (writeOnly.includes(name) && text === '') continue;
    if (lists.includes(name)) {
      const element = elementOf(shape[name]);
      body[name] = [value]
        .flat()
        .filter((v) => v !== '')
        .map((v) => typedItem(element, v));
      continue;
    }
    if (
      options.creating &&
      text === '' &&
      kind === 'string' &&
      presence(shape[name]).optional &&
      !('default' in presence(shape[name])) &&
      !shape[name]!.safeParse('').success
    )
      continue;
    if (kind === 'number' || kind === 'int' || kind === 'bigint') {
      if (text.trim() === '') {
        // A blank number is "none" where the property may be null, otherwise left out.
        if (presence(shape[name]).nullable) body[name] = null;
        continue;
      }
      body[name] = /^-?[0-9]+(\.[0-9]+)?$/.test(text.trim()) ? Number(text.trim()) : text;
    } else if (kind === 'boolean') {
      if (text === '') continue; // "as the default": the property is left out
      body[name] = text === 'true' ? true : text === 'false' ? false : text;
    } else if (kind === 'enum' && text === '') {
      // No choice made: null where the property may be null, otherwise left out.
      if (presence(shape[name]).nullable) body[name] = null;
    } else if (kind === 'array' && isTextList(shape[name]) && !text.trim().startsWith('[')) {
      // A list of texts (e-mail addresses, say) is typed one per line; JSON is still taken.
      if (text.trim() === '') continue;
      body[name] = text
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
    } else if (kind === 'array' || kind === 'object' || kind === 'record') {
      if (text.trim() === '') continue;
      try {
        body[name] = JSON.parse(text);
      } catch {
        body[name] = text;
      }
    } else {
      body[name] = text;
    }
  }
  for (const name of lists) if (!(name in body) && name in shape) body[name] = [];
  return body;
}

/** A form-encoded body as fields (repeated names become lists). */
export function parseFormBody(text: string): FormFields {
  const fields: FormFields = {};
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = fields[k];
    fields[k] = prev === undefined ? v : [...[prev].flat(), v];
  }
  return fields;
}

export interface FieldSpec {
  name: string;
  /** Element id, when two forms on a page have a field of the same name. */
  id?: string;
  label: string;
  kind?:
    | 'text'
    | 'number'
    | 'boolean'
    | 'select'
    | 'textarea'
    | 'password'
    | 'file'
    | 'json'
    | 'lines'
    | 'interchange-ids'
    | 'envelope';
  value?: unknown;
  hint?: string | undefined;
  required?: boolean;
  options?: readonly (string | { value: string; label: string })[];
  /** A select of several choices (a list of certificates): sent as repeated names. */
  multiple?: boolean;
  /** A write-only value: shown as set or not set, with a control to replace it. */
  secretSet?: boolean;
  /** Where the form draws it (section titles in api/schemas/field-text.ts). */
  section?: FieldSection;
}

export interface FormState {
  values: Record<string, unknown>;
  /** The API's `details`, keyed by property. */
  errors: Record<string, unknown>;
  /** Write-only fields the refused submission carried, kept server-side (api/ui/kept-secrets.ts). */
  kept?: readonly string[];
}

export const emptyForm: FormState = { values: {}, errors: {} };

/**
 * A record's stored value of a form field: a form drawn from a body schema names its fields at run
 * time, so it reads the record (typed by its route, api/ui/api-answers.ts) field by field.
 */
export function storedValue(record: unknown, name: string): unknown {
  return typeof record === 'object' && record !== null ? Reflect.get(record, name) : undefined;
}

/** Field spec from a schema property: its kind and hint come from the schema. */
export function specFromSchema(name: string, schema: z.ZodType, label?: string): FieldSpec {
  const kind = kindOf(schema);
  const how = presence(schema);
  // The words come from one place the OpenAPI document reads too; the schema's own description wins.
  const text = fieldTextOf(name);
  const spec: FieldSpec = {
    name,
    label: label ?? text.label,
    hint: descriptionOf(schema) ?? (text.help || undefined),
  };
  if (text.section) spec.section = text.section;
  // A create form starts from the schema's defaults, as the API does for a property left out.
  if ('default' in how) spec.value = how.default;
  if (kind === 'number' || kind === 'int') spec.kind = 'number';
  else if (kind === 'boolean') {
    // An optional setting without a default (its value comes from elsewhere, such as a preset)
    // needs a third choice a checkbox cannot give: leave it out.
    if (how.optional && !('default' in how)) {
      spec.kind = 'select';
      spec.options = [{ value: '', label: 'default' }, 'true', 'false'];
    } else spec.kind = 'boolean';
  } else if (kind === 'enum') {
    spec.kind = 'select';
    const values = enumValues(schema);
    spec.options =
      how.nullable || (how.optional && !('default' in how))
        ? [{ value: '', label: how.nullable ? 'none' : 'default' }, ...values]
        : values;
  } else if (name === interchangeIdsName && kind === 'array') spec.kind = 'interchange-ids';
  else if (name === envelopeName && kind === 'object') spec.kind = 'envelope';
  else if (isTextList(schema)) spec.kind = 'lines';
  else if (kind === 'array' || kind === 'object' || kind === 'record') spec.kind = 'json';
  return spec;
}

function enumValues(schema: z.ZodType): string[] {
  let s = schema as unknown as { _zod: { def: Record<string, unknown> } };
  for (let i = 0; i < 20; i++) {
    const def = s._zod.def;
    if (def.type === 'enum') return Object.values(def.entries as Record<string, string>);
    s = (def.innerType ?? def.in) as typeof s;
    if (!s) break;
  }
  return [];
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function field(spec: FieldSpec, state: FormState): Html {
  if (spec.kind === 'interchange-ids') return interchangeIdsField(spec, state);
  if (spec.kind === 'envelope')
    return envelopeField({ ...spec, defaults: EdiEnvelopeSettings.parse({}) }, state);
  const id = spec.id ?? `f-${spec.name}`;
  const error = state.errors[spec.name];
  const errorText =
    error === undefined ? undefined : typeof error === 'string' ? error : JSON.stringify(error);
  const submitted = state.values[spec.name];
  // A submitted form holds texts; a checkbox sends its hidden "false" before "true".
  const value =
    spec.name in state.values
      ? Array.isArray(submitted) && !spec.multiple
        ? submitted[submitted.length - 1]
        : submitted
      : spec.value;
  const described = [spec.hint ? `${id}-hint` : '', errorText ? `${id}-error` : ''].filter(Boolean).join(' ');
  const common = html`id="${id}"
  name="${spec.name}"${described ? html` aria-describedby="${described}"` : ''}${
    errorText ? html` aria-invalid="true"` : ''
  }${spec.required ? html` required` : ''}`;
  let control: Html;
  switch (spec.kind) {
    case 'boolean':
      control = html`<input type="hidden" name="${spec.name}" value="false" /><input
          type="checkbox"
          value="true"
          ${common}${value === true || value === 'true' ? html` checked` : ''}
        />`;
      break;
    case 'select':
      if (spec.multiple) {
        const chosen = new Set(
          (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]).map(asText),
        );
        control = html`<input type="hidden" name="${listMarker}" value="${spec.name}" /><select
            multiple
            size="${String(Math.min(6, Math.max(3, (spec.options ?? []).length)))}"
            ${common}
          >
            ${(spec.options ?? []).map((o) => {
              const v = typeof o === 'string' ? o : o.value;
              const l = typeof o === 'string' ? o : o.label;
              return html`<option value="${v}" ${chosen.has(v) ? html` selected` : ''}>${l}</option>`;
            })}
          </select>`;
        break;
      }
      control = html`<select ${common}>
        ${(spec.options ?? []).map((o) => {
          const v = typeof o === 'string' ? o : o.value;
          const l = typeof o === 'string' ? o : o.label;
          return html`<option value="${v}" ${asText(value) === v ? html` selected` : ''}>${l}</option>`;
        })}
      </select>`;
      break;
    case 'lines':
      control = html`<textarea rows="4" ${common}>
${Array.isArray(value) ? value.map(asText).join('\n') : asText(value)}</textarea>`;
      break;
    case 'textarea':
    case 'json':
      control = html`<textarea rows="4" ${common}>${asText(value)}</textarea>`;
      break;
    case 'password':
      control = html`<input type="password" autocomplete="new-password" ${common} value="" />`;
      break;
    case 'file':
      control = html`<input type="file" ${common} />`;
      break;
    case 'number':
      control = html`<input type="text" inputmode="numeric" ${common} value="${asText(value)}" />`;
      break;
    default:
      control = html`<input type="text" ${common} value="${asText(value)}" />`;
  }
  const entered = state.kept?.includes(spec.name) === true;
  const secret = entered
    ? html`<span class="secret-state" id="${id}-kept">entered, not shown</span>
        <span class="hint">Kept for this form for 10 minutes; leave blank to use it, type to replace.</span>`
    : spec.secretSet === undefined
      ? ''
      : html`<span class="secret-state">${spec.secretSet ? 'set' : 'not set'}</span>
          <span class="hint"
            >Leave blank to keep${spec.secretSet ? ' the stored value' : ' it unset'}; type to replace.</span
          >`;
  return html`<div
    class="field${errorText ? ' has-error' : ''}${spec.kind === 'boolean' ? ' field-check' : ''}"
  >
    <label for="${id}">${spec.label}${spec.required ? html` <span aria-hidden="true">*</span>` : ''}</label>
    ${control} ${secret} ${spec.hint ? html`<p class="hint" id="${id}-hint">${spec.hint}</p>` : ''}
    ${errorText ? html`<p class="error" id="${id}-error" data-field="${spec.name}">${errorText}</p>` : ''}
  </div>`;
}

/**
 * The fields in their sections (api/schemas/field-text.ts), in the order the fields come:
 * open sections as fieldsets, folded ones as a `<details>` that opens when a field in it was
 * refused, so no message is hidden.
 */
export function fieldSections(specs: readonly FieldSpec[], state: FormState): Html {
  const order: FieldSection[] = [];
  const bySection = new Map<FieldSection, FieldSpec[]>();
  for (const spec of specs) {
    const section = spec.section ?? 'basics';
    if (!bySection.has(section)) {
      bySection.set(section, []);
      order.push(section);
    }
    bySection.get(section)!.push(spec);
  }
  // Basics first whatever comes first; folded sections last.
  order.sort(
    (a, b) =>
      Number(sectionTitles[a].folded) - Number(sectionTitles[b].folded) ||
      Number(b === 'basics') - Number(a === 'basics'),
  );
  if (order.length === 1) return html`${specs.map((f) => field(f, state))}`;
  return html`${order.map((section) => {
    const inside = bySection.get(section)!;
    const { title, folded } = sectionTitles[section];
    const drawn = inside.map((f) => field(f, state));
    if (!folded)
      return html`<fieldset class="form-section" data-section="${section}">
        <legend>${title}</legend>
        ${drawn}
      </fieldset>`;
    const refused = inside.some((f) => f.name in state.errors);
    return html`<details class="form-section" data-section="${section}" ${refused ? html` open` : ''}>
      <summary>${title}</summary>
      ${drawn}
    </details>`;
  })}`;
}

/** Errors under a property no field shows (and `_form`), so nothing the API said is lost. */
export function formErrors(state: FormState, shown: readonly string[]): Html {
  const rest = Object.entries(state.errors).filter(([k]) => !shown.includes(k));
  if (rest.length === 0) return html``;
  return html`<div class="alert alert-error" role="alert" id="form-errors">
    <ul>
      ${rest.map(
        ([k, v]) =>
          html`<li data-field="${k}">
            ${k === '_form' ? '' : html`<strong>${k}</strong>: `}${typeof v === 'string' ? v : JSON.stringify(v)}
          </li>`,
      )}
    </ul>
  </div>`;
}

export function csrfInput(token: string): Html {
  return html`<input type="hidden" name="${csrfField}" value="${token}" />`;
}
