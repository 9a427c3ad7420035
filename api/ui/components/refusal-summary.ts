/**
 * The refusal summary: how a page shows what the API refused, as a notice above the page, with
 * the page's status set to the refusal's and the field messages kept for the form.
 */
import type { ApiError } from '../../errors.js';
import type { FormState } from '../form.js';
import { html, type Html } from '../html.js';
import type { Notice } from '../layout.js';
import { refusal } from './data.js';
import type { Answer } from './page-frame.js';

/** The notice that says in words what the API refused. */
export function refusalNotice(error: ApiError): Notice {
  return { kind: 'error', text: refusal(error) };
}

/** The page's answer to a refusal: its status and its notice. */
export function refused(error: ApiError): Answer {
  return { status: error.status, notices: [refusalNotice(error)] };
}

/** The form as it was submitted, with the API's messages beside its fields. */
export function refusedState(error: ApiError, values: FormState['values'] = {}): FormState {
  return { values, errors: error.details ?? {} };
}

/** A refusal drawn in place, where a section of the page could not be loaded. */
export function refusalAlert(error: ApiError): Html {
  return html`<div class="alert alert-error" role="alert">${refusal(error)}</div>`;
}

/**
 * The answer to a refused form: a plain INVALID_INPUT is said beside its fields only; any other
 * refusal (a conflict, a missing record) is also said above the page.
 */
export function refusedForm(error: ApiError): Answer {
  return error.code === 'INVALID_INPUT' ? { status: error.status } : refused(error);
}
