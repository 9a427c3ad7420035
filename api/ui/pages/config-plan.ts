/**
 * The plan of a configuration file, and what an apply did, as the import page shows them. A
 * certificate's PEM is shown as its subject and fingerprint, the PEM itself behind a toggle,
 * so a file with certificates keeps the page as wide as the window.
 */
import { X509Certificate } from 'node:crypto';
import type { PlannedChange } from '../../config-files/plan.js';
import type { AnswerOf } from '../api-answers.js';
import { html, type Html } from '../html.js';
import { uiPrefix } from '../layout.js';

/** Longer texts than this are cut on the plan, the whole behind a toggle. */
const shortText = 80;

function certificateSummary(pem: string): Html | undefined {
  try {
    const certificate = new X509Certificate(pem);
    const subject = certificate.subject.replace(/\n/g, ', ');
    const fingerprint = certificate.fingerprint256.slice(0, 23);
    return html`<span class="pem-summary"
      >certificate ${subject}, SHA-256 <code>${fingerprint}…</code></span
    >`;
  } catch {
    return undefined;
  }
}

function shown(value: unknown): Html | string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const summary =
    typeof value === 'string' && value.includes('-----BEGIN') ? certificateSummary(value) : undefined;
  if (!summary && text.length <= shortText) return JSON.stringify(value);
  return html`${summary ?? html`<span>${text.slice(0, shortText)}…</span>`}
    <details class="plan-value">
      <summary>${summary ? 'Show the PEM' : 'Show all'}</summary>
      <pre>${text}</pre>
    </details>`;
}

export function planTable(changes: PlannedChange[]): Html {
  if (changes.length === 0)
    return html`<p class="empty">No changes: the install already says what the file says.</p>`;
  const verb = { create: 'Create', update: 'Update', delete: 'Delete' } as const;
  return html`<table class="plan">
    <caption>
      Planned changes
    </caption>
    <thead>
      <tr>
        <th scope="col">Change</th>
        <th scope="col">Record</th>
        <th scope="col">Field</th>
        <th scope="col">Now</th>
        <th scope="col">After</th>
      </tr>
    </thead>
    <tbody>
      ${changes.flatMap((c) => {
        const fields = c.action === 'delete' ? [] : c.changes;
        const head = html`<tr>
          <td>${verb[c.action]}</td>
          <td>${c.section} <strong>${c.name}</strong></td>
          <td colspan="3"></td>
        </tr>`;
        return [
          head,
          ...fields.map(
            (f) =>
              html`<tr>
                <td></td>
                <td></td>
                <td><code>${f.field}</code></td>
                <td>${f.secret ? '(secret)' : shown(f.old)}</td>
                <td>${f.secret ? '(secret changes)' : shown(f.new)}</td>
              </tr>`,
          ),
        ];
      })}
    </tbody>
  </table>`;
}

/** What POST /config/apply answers, as its schema types it. */
type Applied = AnswerOf<'POST', '/config/apply'>;

const directoryWords = { made: 'made', present: 'already there', failed: 'not made' } as const;

/** After an apply: the directories made for the file's instances, and how each changed instance stands. */
export function applyOutcome(directories: Applied['directories'], instances: Applied['instances']): Html {
  const failed = instances.filter((i) => i.error);
  return html`<section aria-labelledby="applied-heading" class="apply-outcome">
    <h2 id="applied-heading">What the apply did</h2>
    ${
      directories.length > 0
        ? html`<h3>Directories</h3>
            <ul class="directories">
              ${directories.map(
                (d) =>
                  html`<li data-outcome="${d.outcome}">
                    <code>${d.path}</code> (${d.instance}, ${d.field}):
                    ${directoryWords[d.outcome]}${d.error ? html`: <strong>${d.error}</strong>` : ''}
                  </li>`,
              )}
            </ul>`
        : ''
    }
    ${
      instances.length > 0
        ? html`<h3>Instances</h3>
            <ul class="instances">
              ${instances.map(
                (i) =>
                  html`<li data-outcome="${i.error ? 'failed' : i.outcome}">
                    <a href="${uiPrefix}/instances/${i.type}/${i.name}">${i.type} ${i.name}</a>:
                    ${i.outcome}${i.error ? html`: <strong>${i.error}</strong>` : ''}
                  </li>`,
              )}
            </ul>`
        : ''
    }
    ${
      failed.length > 0
        ? html`<p class="hint">
            Fix what stopped ${failed.length === 1 ? 'it' : 'them'} (the reason is beside each), then start
            ${failed.length === 1 ? 'it' : 'them'} on <a href="${uiPrefix}/instances">Plugin instances</a>.
          </p>`
        : ''
    }
  </section>`;
}
