/**
 * The message page's interchange as a readable tree: interchange, groups, sets (or messages) and
 * segments as nested disclosure widgets, each element with its position name and, for EDIFACT,
 * the directory's names and code meanings (docs/edi-json.md). Loaded into the page after it
 * shows (the page stays fast for a large payload) from its own fragment route, which reads the
 * stage through the same service as GET /messages/{id}/payload.
 *
 * The section sits in the message page's live region but is kept (hx-preserve) when that region
 * is swapped: an interchange never changes, and a refresh must not close what the reader opened
 * nor read the payload again. The page refreshes once as soon as its event stream opens, often
 * just after the reader's first click.
 */
import type { FastifyInstance } from 'fastify';
import { openPayload } from '../resources/messages/payload.js';
import { annotate } from '../../edi/json/annotate.js';
import {
  EdiJsonError,
  type EdiJson,
  type GroupJson,
  type SegmentJson,
  type SetJson,
} from '../../edi/json/form.js';
import { ediToDocument } from '../../edi/json/translate.js';
import { html, href, type Html } from './html.js';
import { uiContext, type UiDeps } from './components/request-context.js';
import type { PathOf } from './components/page-frame.js';
import { uiPrefix } from './layout.js';
import { limits } from '../../limits/limits.js';

const base = `${uiPrefix}/messages`;

const heading = html`<h2 id="edi-tree-heading">Interchange</h2>`;

/**
 * The section the message page puts where the tree goes; the fragment route fills it. A live
 * swap finds the same id with hx-preserve in its new content and keeps the section already shown.
 */
export function ediTreeSlot(id: string): Html {
  return html`<section
    id="edi-tree"
    aria-labelledby="edi-tree-heading"
    hx-preserve
    hx-get="${base}/${id}/edi-tree"
    hx-trigger="load"
    hx-swap="innerHTML"
  >
    ${heading}
    <p>Reading the interchange…</p>
  </section>`;
}

function value(v: string | string[] | string[][]): string {
  if (typeof v === 'string') return v;
  return (v as unknown[])
    .map((x) => (Array.isArray(x) ? (x as string[]).join(' : ') : String(x)))
    .join(Array.isArray(v[0]) ? ' | ' : ' : ');
}

/** One row per element, or per component of a composite: its position, name, value and meaning. */
interface Row {
  position: string;
  name: string | null;
  value: string;
  meaning: string | undefined;
}

function rowsOf(s: SegmentJson): Row[] {
  const rows: Row[] = [];
  s.elements.forEach((e, i) => {
    const position = s.positions?.[i] ?? `${s.tag}${String(i + 1).padStart(2, '0')}`;
    const name = s.names?.[i] ?? null;
    if (typeof e === 'string' || !Array.isArray(position)) {
      const shown = typeof e === 'string' ? e : value(e);
      const first = Array.isArray(position) ? position[0]! : position;
      if (shown !== '')
        rows.push({
          position: first,
          name: Array.isArray(name) ? (name[0] ?? null) : name,
          value: shown,
          meaning: s.meanings?.[first],
        });
      return;
    }
    // A composite (or a repeated one: its occurrences side by side): one row per component.
    const occurrences = Array.isArray(e[0]) ? (e as string[][]) : [e as string[]];
    position.forEach((p, c) => {
      const shown = occurrences
        .map((o) => o[c] ?? '')
        .filter((v) => v !== '')
        .join(' | ');
      if (shown !== '')
        rows.push({
          position: p,
          name: Array.isArray(name) ? (name[c] ?? null) : null,
          value: shown,
          meaning: s.meanings?.[p],
        });
    });
  });
  return rows;
}

function segmentLine(raw: SegmentJson, standard: EdiJson['standard']): Html {
  const s = annotate(raw, standard);
  return html`<li class="edi-segment">
    <code class="edi-tag">${s.tag}</code>${s.name ? html` <span class="edi-name">${s.name}</span>` : ''}
    <dl class="edi-elements">
      ${rowsOf(s).map(
        (r) =>
          html`<div>
            <dt><code>${r.position}</code>${r.name ? html` <span class="edi-name">${r.name}</span>` : ''}</dt>
            <dd>
              <code>${r.value}</code>${r.meaning ? html` <span class="edi-meaning">${r.meaning}</span>` : ''}
            </dd>
          </div>`,
      )}
    </dl>
  </li>`;
}

function setNode(set: SetJson, standard: EdiJson['standard']): Html {
  const type = standard === 'x12' ? String(set.header.elements[0]) : value(set.header.elements[1] ?? '');
  const control = value(set.header.elements[standard === 'x12' ? 1 : 0] ?? '');
  return html`<li>
    <details>
      <summary>
        ${standard === 'x12' ? 'Transaction set' : 'Message'} ${type}, control ${control}
        (${String(set.segments.length)} segments)
      </summary>
      <ul class="edi-segments">
        ${segmentLine(set.header, standard)} ${set.segments.map((s) => segmentLine(s, standard))}
        ${segmentLine(set.trailer, standard)}
      </ul>
    </details>
  </li>`;
}

function groupNode(group: GroupJson, standard: EdiJson['standard']): Html {
  const sets = group.transactions ?? group.messages ?? [];
  return html`<li>
    <details open>
      <summary>
        Group ${value(group.header.elements[0] ?? '')}, control
        ${value(group.header.elements[standard === 'x12' ? 5 : 4] ?? '')}
      </summary>
      <ul>
        ${segmentLine(group.header, standard)} ${sets.map((s) => setNode(s, standard))}
        ${segmentLine(group.trailer, standard)}
      </ul>
    </details>
  </li>`;
}

/** The section's content: its heading and the tree. */
export function ediTree(doc: EdiJson): Html {
  const h = doc.header.elements;
  const title =
    doc.standard === 'x12'
      ? `X12 ${String(h[11])}, control ${String(h[12])}, from ${String(h[5]).trim()} to ${String(h[7]).trim()}`
      : `EDIFACT ${value(h[0] ?? '')}, reference ${value(h[4] ?? '')}, from ${value(h[1] ?? '')} to ${value(h[2] ?? '')}`;
  return html`${heading}
    <ul class="edi-tree">
      <li>
        <details open>
          <summary>${title}</summary>
          <ul>
            ${segmentLine(doc.header, doc.standard)}
            ${(doc.groups ?? []).map((g) => groupNode(g, doc.standard))}
            ${(doc.messages ?? []).map((s) => setNode(s, doc.standard))}
            ${segmentLine(doc.trailer, doc.standard)}
          </ul>
        </details>
      </li>
    </ul>`;
}

const note = (text: Html | string) =>
  html`${heading}
    <p>${text}</p>`;

export function registerEdiTree(app: FastifyInstance, deps: UiDeps): void {
  app.get<PathOf<'id'>>(`${base}/:id/edi-tree`, async (request, reply) => {
    uiContext(deps, request, reply); // signed in, or sent to sign in
    const { id } = request.params;
    const opened = await openPayload(deps.ctx, id, 'unpacked');
    const send = (part: Html) => reply.type('text/html; charset=utf-8').send(part.toString());
    if (opened.size > limits.ediTreeMaxBytes) {
      opened.body.destroy();
      return send(
        note(
          html`The interchange is larger than 2 MiB, too large to draw here;
            <a href="${href(`${base}/${id}/payload`, { format: 'json' })}">download it as JSON</a>.`,
        ),
      );
    }
    const chunks: Buffer[] = [];
    for await (const chunk of opened.body) chunks.push(chunk as Buffer);
    try {
      return send(ediTree(ediToDocument(Buffer.concat(chunks))));
    } catch (error) {
      if (error instanceof EdiJsonError) return send(note(`Not shown as a tree: ${error.message}`));
      throw error;
    }
  });
}
