/** The dashboard: /stats figures, messages per hour, instances, expiring certificates, recent alerts. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EntityManager } from '@mikro-orm/postgresql';
import { messagesPerHourSince } from '../../../storage/repositories/message-counts.js';
import { freshEm } from '../../context.js';
import { recentAlerts } from '../../../runtime/index.js';
import { notifierNotice } from './notifier-notice.js';
import { html, type Html } from '../html.js';
import { liveRegion } from '../live.js';
import { assetPrefix, uiPrefix } from '../layout.js';
import { dashes, lookOf } from '../status-look.js';
import { badge, table, when } from '../components/data.js';
import { callApi, mustCall, queryOf, sendPage, uiContext } from '../components/request-context.js';
import type { AnswerOf, UiDeps } from '../components/index.js';

type Stats = AnswerOf<'GET', '/stats'>;
type Service = AnswerOf<'GET', '/services'>[number];
type Certificate = AnswerOf<'GET', '/certificates/expiring'>['certificates'][number];
type Alert = Awaited<ReturnType<typeof recentAlerts>>[number];
const hour = 3600 * 1000;

export interface HourlySeries {
  /** Start of each hour, seconds since the epoch (uPlot's x axis). */
  hours: number[];
  series: { label: string; values: number[] }[];
}

/** Messages created per hour over the window, by direction and by status. */
async function messagesPerHour(em: EntityManager, now: Date, hours: number): Promise<HourlySeries> {
  const end = Math.floor(now.getTime() / hour) * hour;
  const start = end - (hours - 1) * hour;
  const rows = await messagesPerHourSince(em, new Date(start));
  const index = (d: Date) => Math.round((new Date(d).getTime() - start) / hour);
  const slots = Array.from({ length: hours }, (_, i) => (start + i * hour) / 1000);
  const byLabel = new Map<string, number[]>();
  const add = (label: string, i: number, n: number) => {
    if (!byLabel.has(label)) byLabel.set(label, new Array<number>(hours).fill(0));
    byLabel.get(label)![i]! += n;
  };
  add('inbound', 0, 0);
  add('outbound', 0, 0);
  for (const r of rows) {
    const i = index(r.h);
    if (i < 0 || i >= hours) continue;
    add(r.direction, i, Number(r.n));
    add(r.status, i, Number(r.n));
  }
  return { hours: slots, series: [...byLabel].map(([label, values]) => ({ label, values })) };
}

/** The chart's data for chart.js: each series with the tone and dash of its status. */
function chartData(chart: HourlySeries) {
  return {
    hours: chart.hours,
    series: chart.series.map((s) => {
      const look = lookOf(s.label);
      return { label: s.label, values: s.values, tone: look.tone, dash: dashes[look.pattern] };
    }),
  };
}

/**
 * The legend of the chart with each series' total: the line's colour and pattern drawn beside
 * its name and meaning, so no series is told by colour alone. It carries the chart's data too
 * (hidden), so the live refresh that updates the legend redraws the chart from the same numbers.
 */
function legendOf(chart: HourlySeries): Html {
  const rows = chart.series.map((s) => ({ label: s.label, total: s.values.reduce((a, b) => a + b, 0) }));
  return html`<div id="chart-data" hidden data-chart="${JSON.stringify(chartData(chart))}"></div>
    ${table(
      'Legend and totals of the chart',
      [
        {
          label: 'Line',
          cell: (r: { label: string; total: number }) => {
            const look = lookOf(r.label);
            return html`<span
                class="swatch tone-${look.tone} pattern-${look.pattern}"
                aria-hidden="true"
              ></span
              ><span class="visually-hidden">${look.pattern} line</span>`;
          },
        },
        {
          label: 'Series',
          cell: (r) => {
            const meaning = lookOf(r.label).meaning;
            return html`<strong>${r.label}</strong
              >${meaning ? html` <span class="muted">${meaning}</span>` : ''}`;
          },
        },
        { label: 'Messages', cell: (r) => r.total },
      ],
      rows,
    )}`;
}

/** What the page an alert links to is for, by its path (flow/alerts/links.ts). */
function fixLabel(path: string): string {
  if (/\/partners\/[^/]+\/profile$/.test(path)) return "Open the partner's profile";
  if (path.startsWith(`${uiPrefix}/instances/`)) return "Open the instance's settings";
  if (path === `${uiPrefix}/settings`) return 'Open the storage settings';
  if (path.startsWith(`${uiPrefix}/messages/`)) return 'Open the message';
  if (path.startsWith(`${uiPrefix}/certificates/`)) return 'Open the certificate';
  return 'Open';
}

/**
 * The system status: Degraded by the failures of the last 24 hours (docs/api/stats.md), else "Needs
 * attention" while any alert stands (docs/alerts.md), each named with a link to where it is fixed.
 */
function statusOf(stats: Stats): Html {
  const open = stats.open_alerts;
  const status = stats.system_status;
  const shown =
    status !== 'Healthy' || open.length === 0
      ? badge(status)
      : badge('Needs attention', open.some((a) => a.severity === 'critical') ? 'critical' : 'warning');
  // A partner refusing connections is not an alert for its first minutes, but it is news.
  const retrying = stats.retrying_messages;
  const retries =
    retrying > 0
      ? html` <a href="${uiPrefix}/messages?status=Retrying" id="retrying"
          >${badge(`retrying: ${retrying}`, 'warning')}</a
        >`
      : '';
  const items = open.map((a) => {
    // Links are absolute with PUBLIC_URL for notifications; here the path keeps the browser on this host.
    const path = a.link ? new URL(a.link, 'http://pier.invalid').pathname : '';
    return html`<li>
      ${badge(a.severity)} ${a.summary} ${path ? html`<a href="${path}">${fixLabel(path)}</a>` : ''}
    </li>`;
  });
  return html`<p class="system">System status: ${shown}${retries}</p>
    ${
      open.length > 0
        ? html`<ul class="open-alerts" aria-label="Open alerts">
            ${items}
          </ul>`
        : ''
    }`;
}

/** The /stats figures and system status: the dashboard's live region, read out when it changes. */
function figuresOf(stats: Stats): Html {
  const figures: [string, number][] = [
    ['Messages, last 24 h', stats.messages_last_24h],
    ['Sent, last 24 h', stats.sent_last_24h],
    ['Received, last 24 h', stats.received_last_24h],
    ['Messages, last 7 days', stats.messages_last_7d],
    ['In flight', stats.in_flight_messages],
    ['Failed, last 24 h', stats.failed_last_24h],
  ];
  return html`${statusOf(stats)}
    <ul class="figures" id="figures">
      ${figures.map(([k, v]) => html`<li><span class="figure">${v}</span><span class="figure-label">${k}</span></li>`)}
    </ul>`;
}

export function registerDashboard(app: FastifyInstance, deps: UiDeps): void {
  const figuresPath = `${uiPrefix}/dashboard/figures`;
  const legendPath = `${uiPrefix}/dashboard/chart`;
  const rangeOf = (request: FastifyRequest) => (queryOf(request).range === '7d' ? '7d' : '24h');
  const chartOf = (range: '7d' | '24h') =>
    messagesPerHour(freshEm(deps.ctx), deps.ctx.now(), range === '7d' ? 168 : 24);
  app.get(figuresPath, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const stats = await mustCall(deps, ui, request, reply, 'GET', '/stats');
    return reply.type('text/html; charset=utf-8').send(figuresOf(stats).text);
  });
  // The same message history event refreshes the cards and the chart, so they never disagree.
  app.get(legendPath, async (request, reply) => {
    uiContext(deps, request, reply);
    const chart = await chartOf(rangeOf(request));
    return reply.type('text/html; charset=utf-8').send(legendOf(chart).text);
  });
  app.get(uiPrefix, async (request, reply) => {
    const ui = uiContext(deps, request, reply);
    const stats = await mustCall(deps, ui, request, reply, 'GET', '/stats');
    const range = rangeOf(request);
    const chart = await chartOf(range);
    const services = await callApi(deps, ui, request, reply, 'GET', '/services');
    const expiring = await callApi(deps, ui, request, reply, 'GET', '/certificates/expiring', {
      query: {},
    });
    // The alerts themselves, not the notification log: without a notifier that log is empty.
    const alerts = await recentAlerts(freshEm(deps.ctx), 10);
    const body = html`${liveRegion({ name: 'figures', url: figuresPath, content: figuresOf(stats), announce: true })}
      <section aria-labelledby="chart-heading">
        <h2 id="chart-heading">Messages per hour, last ${range === '7d' ? '7 days' : '24 hours'}</h2>
        <nav class="tabs" aria-label="Chart range">
          <a href="${uiPrefix}?range=24h" ${range === '24h' ? html` aria-current="true"` : ''}>24 hours</a>
          <a href="${uiPrefix}?range=7d" ${range === '7d' ? html` aria-current="true"` : ''}>7 days</a>
        </nav>
        <div
          class="chart"
          id="chart"
          role="img"
          aria-label="Messages per hour by direction and status; the legend with totals is below"
        ></div>
        ${liveRegion({ name: 'chart', url: `${legendPath}?range=${range}`, content: legendOf(chart) })}
      </section>
      <section aria-labelledby="instances-heading">
        <h2 id="instances-heading">Plugin instances</h2>
        ${
          services.ok
            ? table(
                'States of the plugin instances',
                [
                  {
                    label: 'Instance',
                    cell: (r: Service) => html`<a href="${uiPrefix}/instances">${r.type}/${r.name}</a>`,
                  },
                  { label: 'Status', cell: (r) => badge(r.status) },
                  { label: 'Since', cell: (r) => when(r.state_since) },
                ],
                services.data,
              )
            : html`<p>${services.error.message}</p>`
        }
      </section>
      <section aria-labelledby="expiring-heading">
        <h2 id="expiring-heading">Certificates expiring within 30 days</h2>
        ${
          expiring.ok
            ? table(
                'Expiring certificates',
                [
                  {
                    label: 'Certificate',
                    cell: (r: Certificate) =>
                      html`<a href="${uiPrefix}/certificates/${r.id}">${r.description || r.common_name}</a>`,
                  },
                  { label: 'State', cell: (r) => badge(r.state) },
                  { label: 'Days left', cell: (r) => `${r.days_remaining}` },
                ],
                expiring.data.certificates,
                'No certificate expires within 30 days.',
              )
            : ''
        }
      </section>
      <section aria-labelledby="alerts-heading">
        <h2 id="alerts-heading">Recent alerts</h2>
        ${services.ok ? notifierNotice(services.data) : ''}
        ${table(
          'The ten newest alerts',
          [
            { label: 'Time', cell: (r: Alert) => when(r.raised_at) },
            { label: 'Severity', cell: (r) => badge(r.severity) },
            { label: 'Summary', cell: (r) => r.summary },
          ],
          alerts,
          'No alerts.',
        )}
      </section>`;
    return sendPage(reply, ui, {
      title: 'Dashboard',
      body,
      scripts: [`${assetPrefix}/uplot/uPlot.iife.min.js`, `${assetPrefix}/app/chart.js`],
      styles: [`${assetPrefix}/uplot/uPlot.min.css`],
      live: {},
    });
  });
}
