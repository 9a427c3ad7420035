/** The steps of a check (connection, SFTP server) as an ordered list with each step's state. */
import { html, type Html } from '../html.js';

type Row = Record<string, unknown>;

/** A step's state: its own status, or ok/failed from its flag. */
function stateOf(step: Row): string {
  return String(step.status ?? (step.ok ? 'ok' : 'failed'));
}

export function checkSteps(steps: Record<string, Row>): Html {
  return html`<ol class="steps">
    ${Object.entries(steps).map(([name, step]) => {
      const detail = step.detail || step.message;
      return html`<li class="step step-${stateOf(step)}">
        <strong>${name}</strong>: ${stateOf(step)}${detail ? html` — ${String(detail)}` : ''}
      </li>`;
    })}
  </ol>`;
}

/** A check's result: its heading (ok or failed), the problem, then each step. */
export function checkResult(id: string, heading: string, result: Row): Html {
  return html`<section aria-labelledby="${id}-heading" id="${id}-result">
    <h2 id="${id}-heading">${heading}: ${result.ok ? 'ok' : 'failed'}</h2>
    ${result.problem ? html`<p class="alert alert-error" role="alert">${String(result.problem)}</p>` : ''}
    ${checkSteps((result.steps ?? {}) as Record<string, Row>)}
  </section>`;
}
