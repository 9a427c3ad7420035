/**
 * `pier bench --report FILE`: one self-contained HTML file (no script, no network): the table of
 * figures, and for each case two inline SVG plots, right receipts per second over the case and
 * the distribution of their latencies. The run's JSON document is embedded too.
 */
import type { CaseResult, RunResult } from './run.js';

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const W = 420;
const H = 160;
const M = { left: 44, right: 10, top: 10, bottom: 28 };

/** Axis frame with the highest value on the y axis and labels under the x axis. */
function frame(yMax: number, xLabel: string, xMax: string): string {
  return (
    `<line x1="${M.left}" y1="${H - M.bottom}" x2="${W - M.right}" y2="${H - M.bottom}" stroke="#444"/>` +
    `<line x1="${M.left}" y1="${M.top}" x2="${M.left}" y2="${H - M.bottom}" stroke="#444"/>` +
    `<text x="${M.left - 4}" y="${M.top + 8}" text-anchor="end" font-size="10">${yMax}</text>` +
    `<text x="${M.left - 4}" y="${H - M.bottom}" text-anchor="end" font-size="10">0</text>` +
    `<text x="${W - M.right}" y="${H - 8}" text-anchor="end" font-size="10">${escape(xMax)}</text>` +
    `<text x="${(W + M.left) / 2}" y="${H - 8}" text-anchor="middle" font-size="10">${escape(xLabel)}</text>`
  );
}

/** Right receipts in each second, as a line. */
export function throughputSvg(c: CaseResult): string {
  const values = c.per_second;
  const yMax = Math.max(1, ...values);
  const dx = (W - M.left - M.right) / Math.max(1, values.length - 1);
  const y = (v: number) => H - M.bottom - (v / yMax) * (H - M.top - M.bottom);
  const points = values.map((v, i) => `${(M.left + i * dx).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" role="img" aria-label="receipts per second">` +
    frame(yMax, 'second of the case (receipts/s)', `${values.length} s`) +
    `<polyline fill="none" stroke="#1f6feb" stroke-width="1.5" points="${points}"/></svg>`
  );
}

/** How many receipts took how long, as bars. */
export function latencySvg(c: CaseResult): string {
  const buckets = c.latency_histogram;
  const yMax = Math.max(1, ...buckets.map((b) => b.count));
  const bw = (W - M.left - M.right) / Math.max(1, buckets.length);
  const bars = buckets
    .map((b, i) => {
      const h = (b.count / yMax) * (H - M.top - M.bottom);
      return `<rect x="${(M.left + i * bw).toFixed(1)}" y="${(H - M.bottom - h).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${h.toFixed(1)}" fill="#2da44e"><title>${b.from}–${b.to} ms: ${b.count}</title></rect>`;
    })
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" role="img" aria-label="latency distribution">` +
    frame(yMax, 'latency (ms), messages per bar', `${buckets.at(-1)?.to ?? 0} ms`) +
    bars +
    '</svg>'
  );
}

export function renderHtml(r: RunResult, table: string): string {
  const cases = r.cases
    .map(
      (c) =>
        `<section><h3>${c.endpoint.toUpperCase()} ${escape(c.url)}: ${c.connections}, concurrency ${c.concurrency}, round ${c.round}</h3>` +
        `<p>${c.ok} of ${c.sent} right, ${c.msg_per_s} msg/s${c.delivered ? ` (${c.delivered.msg_per_s} msg/s until the last document delivered)` : ''}, p50 ${c.latency_ms.p50} ms, p90 ${c.latency_ms.p90} ms, p99 ${c.latency_ms.p99} ms, max ${c.latency_ms.max} ms` +
        `${c.cpu ? `, server CPU ${c.cpu.server_ms_per_msg} ms = ${c.cpu.rsa2048_ops_per_msg} RSA-2048 operations per message` : ''}` +
        `${c.failed ? `; failures: ${escape(JSON.stringify(c.failures))}` : ''}</p>` +
        `<div class="plots">${throughputSvg(c)}${latencySvg(c)}</div></section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pier bench ${escape(r.started_at)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}pre{background:#f6f8fa;padding:1em;overflow:auto}
.plots{display:flex;gap:1em;flex-wrap:wrap}.verdict{font-weight:bold;color:${r.passed ? '#1a7f37' : '#cf222e'}}</style></head>
<body><h1>pier bench</h1><p>Run started ${escape(r.started_at)}.</p>
<p class="verdict">${r.passed ? 'Passed: every receipt was right.' : 'Failed: some receipts were wrong or missing; the figures do not count.'}</p>
<h2>Figures</h2><pre>${escape(table)}</pre>
<h2>Cases</h2>
${cases}
<h2>The run as JSON</h2><pre id="run-json">${escape(JSON.stringify(r, null, 1))}</pre>
</body></html>
`;
}
