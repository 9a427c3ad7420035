/**
 * A party's EDI properties as form fields instead of JSON: its interchange ids as rows of a
 * qualifier picker and an id, and a partner's envelope settings (edi_envelope) one field each.
 * The fields are folded back into the one property the API takes before the body is made, so
 * the form and the API refuse the same values with the same messages; a JSON text still works
 * for either property (a script posting the form as before).
 */
import { edifactDelimiterNames, x12DelimiterNames } from '../schemas/edi-envelope.js';
import { html, type Html } from './html.js';
import {
  edifactQualifiers,
  qualifierLabel,
  x12Qualifiers,
  type Qualifier,
} from './interchange-qualifiers.js';

/** A submitted form's fields, and a form's state: form.ts's shapes, which draws these fields (no import back). */
type FormFields = Record<string, string | string[]>;
interface FormState {
  values: Record<string, unknown>;
  errors: Record<string, unknown>;
}

export const interchangeIdsName = 'interchange_ids';
export const envelopeName = 'edi_envelope';

/** Empty rows drawn after the stored ids: room for new ones without a script. */
const blankRows = 2;

interface IdRow {
  qualifier: string;
  id: string;
}

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : [v].flat());

/** The rows a submitted form carried: one per id field, its qualifier beside it. */
function submittedRows(fields: Readonly<Record<string, unknown>>): IdRow[] | undefined {
  if (!(`${interchangeIdsName}.id` in fields)) return undefined;
  const ids = list(fields[`${interchangeIdsName}.id`] as string | string[]);
  const qualifiers = list(fields[`${interchangeIdsName}.qualifier`] as string | string[] | undefined);
  return ids.map((id, i) => ({ qualifier: qualifiers[i] ?? '', id }));
}

function storedRows(value: unknown): IdRow[] {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(v)) return [];
  return v
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null)
    .map((r) => ({ qualifier: String(r.qualifier ?? ''), id: String(r.id ?? '') }));
}

/**
 * The form's fields with the EDI rows and settings folded into their properties as JSON text,
 * which formToBody reads as it reads any JSON field. A row with neither qualifier nor id is
 * no id; a row with a qualifier but no id is sent, so the API says the id is missing.
 */
export function foldEdiFields(fields: FormFields): FormFields {
  // A JSON text of the whole property, where a client sends one, is what it meant.
  const given = (name: string) => (list(fields[name]).at(-1) ?? '').trim() !== '';
  const rows = given(interchangeIdsName) ? undefined : submittedRows(fields);
  const envelopeKeys = given(envelopeName)
    ? []
    : Object.keys(fields).filter((k) => k.startsWith(`${envelopeName}.`));
  const out: FormFields = {};
  for (const [k, v] of Object.entries(fields))
    if (!k.startsWith(`${interchangeIdsName}.`) && !k.startsWith(`${envelopeName}.`)) out[k] = v;
  if (!rows && envelopeKeys.length === 0) return out;
  if (rows)
    out[interchangeIdsName] = JSON.stringify(
      rows
        .map((r) => ({ qualifier: r.qualifier.trim(), id: r.id.trim() }))
        .filter((r) => r.qualifier !== '' || r.id !== ''),
    );
  if (envelopeKeys.length > 0) {
    const settings: Record<string, unknown> = {};
    for (const key of envelopeKeys) {
      const name = key.slice(envelopeName.length + 1);
      const value = list(fields[key]).at(-1) ?? '';
      if (name === 'test' || name === 'acknowledgement_requested') settings[name] = value === 'true';
      // A blank delimiter or version takes its default; a blank repetition is "none" (its usual).
      else if (value !== '' || name.endsWith('_repetition')) settings[name] = value;
    }
    out[envelopeName] = JSON.stringify(settings);
  }
  return out;
}

function qualifierOptions(
  group: string,
  qualifiers: readonly Qualifier[],
  chosen: { value: string; done: boolean },
) {
  return html`<optgroup label="${group}">
    ${qualifiers.map((q) => {
      // A code in both lists (ZZ, 14, 12) is selected once, in the first list that has it.
      const selected = !chosen.done && q.code === chosen.value;
      if (selected) chosen.done = true;
      return html`<option value="${q.code}" ${selected ? html` selected` : ''}>
        ${q.code}: ${q.label}
      </option>`;
    })}
  </optgroup>`;
}

function qualifierPicker(id: string, value: string, described: string): Html {
  const chosen = { value, done: value === '' };
  const known = [...x12Qualifiers, ...edifactQualifiers].some((q) => q.code === value);
  return html`<select id="${id}" name="${interchangeIdsName}.qualifier" aria-describedby="${described}">
    <option value="" ${value === '' ? html` selected` : ''}>any qualifier</option>
    ${known || value === '' ? '' : html`<option value="${value}" selected>${value} (as stored)</option>`}
    ${qualifierOptions('X12 (ISA05, ISA07)', x12Qualifiers, chosen)}
    ${qualifierOptions('EDIFACT (UNB 0007)', edifactQualifiers, chosen)}
  </select>`;
}

function errorText(state: FormState, name: string): string | undefined {
  const e = state.errors[name];
  return e === undefined ? undefined : typeof e === 'string' ? e : JSON.stringify(e);
}

/** The interchange ids as rows: a qualifier picker and the id, with empty rows for new ones. */
export function interchangeIdsField(
  spec: { label: string; hint?: string | undefined; value?: unknown },
  state: FormState,
): Html {
  const base = `f-${interchangeIdsName}`;
  const rows = submittedRows(state.values) ?? storedRows(state.values[interchangeIdsName] ?? spec.value);
  const drawn = [
    ...rows.filter((r) => r.qualifier !== '' || r.id !== ''),
    ...Array.from({ length: blankRows }, () => ({ qualifier: '', id: '' })),
  ];
  const error = errorText(state, interchangeIdsName);
  const described = [`${base}-hint`, error ? `${base}-error` : ''].filter(Boolean).join(' ');
  return html`<fieldset class="field interchange-ids${error ? ' has-error' : ''}" id="${base}">
    <legend>${spec.label}</legend>
    <p class="hint" id="${base}-hint">
      ${spec.hint ?? ''} Pick the qualifier your partner's set-up sheet names (ZZ for a mutually defined id);
      an empty row is left out.
    </p>
    ${drawn.map(
      (r, i) =>
        html`<div class="interchange-id-row">
          <div class="field">
            <label for="${base}-qualifier-${String(i)}">Qualifier ${String(i + 1)}</label>
            ${qualifierPicker(`${base}-qualifier-${String(i)}`, r.qualifier, described)}
          </div>
          <div class="field">
            <label for="${base}-id-${String(i)}">Id ${String(i + 1)}</label>
            <input
              type="text"
              id="${base}-id-${String(i)}"
              name="${interchangeIdsName}.id"
              value="${r.id}"
              maxlength="35"
              aria-describedby="${described}"
              ${error ? html` aria-invalid="true"` : ''}
            />
          </div>
        </div>`,
    )}
    ${error ? html`<p class="error" id="${base}-error" data-field="${interchangeIdsName}">${error}</p>` : ''}
  </fieldset>`;
}

/** Interchange ids as a page shows them: `ZZ ACME, 01 123456789`. */
export function interchangeIdsText(value: unknown): string {
  const rows = storedRows(value);
  return rows.length === 0
    ? '—'
    : rows.map((r) => `${qualifierLabel(r.qualifier).split(':')[0]} ${r.id}`).join(', ');
}

interface EnvelopeInput {
  name: string;
  label: string;
  kind: 'text' | 'check';
}

const delimiterLabels: Record<string, string> = {
  x12_element: 'Element separator',
  x12_component: 'Component separator (ISA16)',
  x12_repetition: 'Repetition separator (ISA11); empty: ^ from 00402, none before',
  x12_segment: 'Segment terminator',
  edifact_element: 'Data element separator',
  edifact_component: 'Component separator',
  edifact_repetition: 'Repetition separator; empty: * from syntax version 4, none before',
  edifact_release: 'Release character',
  edifact_segment: 'Segment terminator',
};

const envelopeGroups: { legend: string; inputs: EnvelopeInput[] }[] = [
  {
    legend: 'Both standards',
    inputs: [
      { name: 'test', label: 'Test interchanges (X12 ISA15 T, EDIFACT UNB 0035 1)', kind: 'check' },
      {
        name: 'acknowledgement_requested',
        label: 'Ask for a functional acknowledgement (X12 ISA14 1, EDIFACT UNB 0031 1)',
        kind: 'check',
      },
    ],
  },
  {
    legend: 'X12',
    inputs: [
      { name: 'x12_version', label: 'Version (ISA12), such as 00401 or 00501', kind: 'text' },
      ...x12DelimiterNames.map((name) => ({ name, label: delimiterLabels[name]!, kind: 'text' as const })),
    ],
  },
  {
    legend: 'EDIFACT',
    inputs: [
      {
        name: 'edifact_syntax',
        label: 'Syntax identifier and version (UNB 0001:0002), such as UNOC:3',
        kind: 'text',
      },
      ...edifactDelimiterNames.map((name) => ({
        name,
        label: delimiterLabels[name]!,
        kind: 'text' as const,
      })),
    ],
  },
];

function envelopeValues(spec: { value?: unknown }, state: FormState): Record<string, unknown> {
  const submitted = Object.keys(state.values).filter((k) => k.startsWith(`${envelopeName}.`));
  if (submitted.length > 0)
    return Object.fromEntries(
      submitted.map((k) => [
        k.slice(envelopeName.length + 1),
        list(state.values[k] as string | string[]).at(-1),
      ]),
    );
  let v = state.values[envelopeName] ?? spec.value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      v = {};
    }
  }
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
}

/** The envelope settings one field each, X12 and EDIFACT apart; the API's defaults as placeholders. */
export function envelopeField(
  spec: { label: string; hint?: string | undefined; value?: unknown; defaults: Record<string, unknown> },
  state: FormState,
): Html {
  const base = `f-${envelopeName}`;
  const values = envelopeValues(spec, state);
  const error = errorText(state, envelopeName);
  return html`<fieldset class="field edi-envelope${error ? ' has-error' : ''}" id="${base}">
    <legend>${spec.label}</legend>
    ${spec.hint ? html`<p class="hint" id="${base}-hint">${spec.hint}</p>` : ''}
    ${error ? html`<p class="error" id="${base}-error" data-field="${envelopeName}">${error}</p>` : ''}
    ${envelopeGroups.map(
      (g) =>
        html`<fieldset class="envelope-group">
          <legend>${g.legend}</legend>
          ${g.inputs.map((input) => {
            const id = `${base}-${input.name}`;
            const name = `${envelopeName}.${input.name}`;
            const value = values[input.name];
            if (input.kind === 'check')
              return html`<div class="field field-check">
                <input type="hidden" name="${name}" value="false" /><input
                  type="checkbox"
                  id="${id}"
                  name="${name}"
                  value="true"
                  ${value === true || value === 'true' ? html` checked` : ''}
                />
                <label for="${id}">${input.label}</label>
              </div>`;
            const fallback = spec.defaults[input.name];
            return html`<div class="field">
              <label for="${id}">${input.label}</label>
              <input
                type="text"
                id="${id}"
                name="${name}"
                value="${value === undefined || value === null ? '' : String(value)}"
                ${typeof fallback === 'string' && fallback !== '' ? html`placeholder="${fallback}"` : ''}
                ${input.name === 'x12_version' || input.name === 'edifact_syntax' ? html`size="8"` : html`size="2" maxlength="1"`}
                ${error ? html`aria-describedby="${base}-error"` : ''}
              />
            </div>`;
          })}
        </fieldset>`,
    )}
  </fieldset>`;
}
