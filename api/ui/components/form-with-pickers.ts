/**
 * The form with pickers: a record form drawn from field specs (grouped in sections), its
 * reference fields (party, instance, certificate…) as pickers with their choices loaded once,
 * the refusal's messages above and beside the fields, and the ticket of kept write-only values.
 */
import { csrfInput, fieldSections, formErrors, type FieldSpec, type FormState } from '../form.js';
import { html, type Html } from '../html.js';
import { keptField } from '../kept-secrets.js';
import { asPicker, type Choices, type PickerKind, type loadChoices } from '../pickers.js';
import type { PageRequest } from './page-frame.js';

export interface RecordFormSpec {
  action: string;
  csrf: string;
  fields: readonly FieldSpec[];
  state: FormState;
  submit: string;
  /** The multipart encoding, for a form with files. */
  files?: boolean;
  /** Drawn before the fields (a preset list). */
  before?: Html | string;
}

/** The hidden ticket of write-only values kept from a refused submission (api/ui/kept-secrets.ts). */
export function keptInput(state: FormState): Html | string {
  const ticket = (state as FormState & { ticket?: string }).ticket;
  return ticket ? html`<input type="hidden" name="${keptField}" value="${ticket}" />` : '';
}

export function recordForm(spec: RecordFormSpec): Html {
  return html`<form
    method="post"
    action="${spec.action}"
    class="record-form"
    ${spec.files ? html`enctype="multipart/form-data"` : ''}
    novalidate
  >
    ${csrfInput(spec.csrf)} ${keptInput(spec.state)} ${spec.before ?? ''}
    ${formErrors(
      spec.state,
      spec.fields.map((f) => f.name),
    )}
    ${fieldSections(spec.fields, spec.state)}
    <button type="submit">${spec.submit}</button>
  </form>`;
}

/** Which reference fields become pickers, by field name. */
export type PickerMap = Record<string, PickerKind>;

/** Turns the named fields into pickers over choices already loaded. */
export function withChoices(
  fields: readonly FieldSpec[],
  pickers: (name: string) => PickerKind | undefined,
  choices: Choices,
  state: FormState,
): FieldSpec[] {
  return fields.map((f) => {
    const kind = pickers(f.name);
    return kind ? asPicker(f, kind, choices, state.values[f.name] ?? f.value) : f;
  });
}

/** Loads the choices the pickers need and turns the named fields into pickers. */
export async function withPickers(
  p: PageRequest,
  fields: readonly FieldSpec[],
  pickers: (name: string) => PickerKind | undefined,
  load: Parameters<typeof loadChoices>[4],
  state: FormState,
): Promise<FieldSpec[]> {
  const choices = await p.choices(load);
  return withChoices(fields, pickers, choices, state);
}
