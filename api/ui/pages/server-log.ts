/**
 * The server log in the web UI, for administrators: the process's recent lines (GET
 * /server-log), newest first, filtered by level and by the part of pier that wrote them. What
 * an operator would otherwise read with journalctl or docker logs, without a terminal.
 */
import type { FastifyInstance } from 'fastify';
import { logLevels, recentLineCapacity } from '../../schemas/server-log.js';
import { html } from '../html.js';
import { uiPrefix } from '../layout.js';
import { openPage } from '../components/index.js';
import { badge, table } from '../components/data.js';
import { type UiDeps } from '../components/request-context.js';

const base = `${uiPrefix}/server-log`;
const tones: Record<string, string> = { warn: 'warn', error: 'error', fatal: 'error' };

function fieldsText(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
}

export function registerServerLogPage(app: FastifyInstance, deps: UiDeps): void {
  app.get(base, async (request, reply) => {
    const p = openPage(deps, request, reply);
    const level = p.query.level ?? 'info';
    const component = p.query.component;
    const answer = await p.call('GET', '/server-log', {
      query: { level, ...(component ? { component } : {}), limit: '500' },
    });
    if (!answer.ok)
      return p.send(
        { title: 'Server log', body: html`` },
        { status: answer.error.status, notices: [{ kind: 'error', text: answer.error.message }] },
      );
    const { lines, components, kept } = answer.data;
    const body = html`<p class="intro">
        The last lines this server wrote to its log (it keeps ${recentLineCapacity}; ${kept} now), newest
        first. Passwords, keys and tokens are never in them.
      </p>
      <form method="get" action="${base}" class="inline filters">
        <label for="log-level">Level and above</label>
        <select id="log-level" name="level">
          ${logLevels.map((l) => html`<option value="${l}" ${l === level ? 'selected' : ''}>${l}</option>`)}
        </select>
        <label for="log-component">Component</label>
        <select id="log-component" name="component">
          <option value="">all</option>
          ${components.map(
            (c) => html`<option value="${c}" ${c === component ? 'selected' : ''}>${c}</option>`,
          )}
        </select>
        <button type="submit">Show</button>
      </form>
      ${table(
        'Server log lines',
        [
          { label: 'Time', cell: (l) => html`<time datetime="${l.time}">${l.time.replace('T', ' ')}</time>` },
          { label: 'Level', cell: (l) => badge(l.level, tones[l.level]) },
          { label: 'Component', cell: (l) => l.component },
          { label: 'Message', cell: (l) => l.msg },
          { label: 'Details', cell: (l) => html`<code class="log-fields">${fieldsText(l.fields)}</code>` },
        ],
        lines,
        'No lines at this level.',
      )}`;
    return p.send({ title: 'Server log', body });
  });
}
