/** The steps of a check (connection, SFTP server) as an ordered list with each step's state. */
import type { z } from 'zod';
import type { CheckStepResult } from '../../schemas/common.js';
import { html, type Html } from '../html.js';

/** One step of a check, as the checks' schemas type it (api/schemas/common.ts). */
type CheckStep = z.output<typeof CheckStepResult>;

/** A check's answer: whether it passed, the first failed step's problem, and each step by name. */
export interface CheckAnswer {
  ok: boolean;
  problem?: string | undefined;
  steps: Readonly<Record<string, CheckStep>>;
}

export function checkSteps(steps: CheckAnswer['steps']): Html {
  return html`<ol class="steps">
    ${Object.entries(steps).map(
      ([name, step]) =>
        html`<li class="step step-${step.status}">
          <strong>${name}</strong>: ${step.status}${step.detail ? html` — ${step.detail}` : ''}
        </li>`,
    )}
  </ol>`;
}

/** A check's result: its heading (ok or failed), the problem, then each step. */
export function checkResult(id: string, heading: string, result: CheckAnswer): Html {
  return html`<section aria-labelledby="${id}-heading" id="${id}-result">
    <h2 id="${id}-heading">${heading}: ${result.ok ? 'ok' : 'failed'}</h2>
    ${result.problem ? html`<p class="alert alert-error" role="alert">${result.problem}</p>` : ''}
    ${checkSteps(result.steps)}
  </section>`;
}
