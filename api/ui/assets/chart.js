/* global document, window, uPlot, getComputedStyle */
// Draws the dashboard's messages-per-hour chart with uPlot from the data the server put on
// #chart-data, each series in the tone and dash its status has (api/ui/status-look.ts), the
// tones read from the style sheet so both themes hold. The legend region beneath is refreshed
// by the live updates (api/ui/live.ts) together with the cards; when it is swapped, the chart
// is redrawn from the new data, so the chart never lags the cards.
'use strict';

function readData() {
  const holder = document.getElementById('chart-data');
  return holder ? JSON.parse(holder.getAttribute('data-chart')) : undefined;
}

function toneColour(tone) {
  const name = tone === 'info' ? '--accent' : `--${tone}`;
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#57606a';
}

function draw(el, data) {
  const axisColour = toneColour('muted');
  const axis = { stroke: axisColour, grid: { stroke: toneColour('line') } };
  const width = () => Math.max(260, el.clientWidth - 16);
  el.replaceChildren();
  const plot = new uPlot(
    {
      width: width(),
      height: 240,
      series: [
        {},
        ...data.series.map((s) => ({
          label: s.label,
          stroke: toneColour(s.tone),
          dash: s.dash,
          width: 2,
        })),
      ],
      axes: [axis, axis],
      scales: { x: { time: true } },
    },
    [data.hours, ...data.series.map((s) => s.values)],
    el,
  );
  return { plot, width };
}

document.addEventListener('DOMContentLoaded', () => {
  const el = document.getElementById('chart');
  const data = readData();
  if (!el || !data || typeof uPlot === 'undefined') return;
  let current = draw(el, data);
  let shape = data.series.map((s) => s.label).join();
  window.addEventListener('resize', () => current.plot.setSize({ width: current.width(), height: 240 }));
  document.body.addEventListener('htmx:afterSwap', (event) => {
    if (!event.target || event.target.id !== 'live-chart') return;
    const next = readData();
    if (!next) return;
    const nextShape = next.series.map((s) => s.label).join();
    // A new status among the series needs new lines; otherwise the numbers are swapped in place.
    if (nextShape === shape) current.plot.setData([next.hours, ...next.series.map((s) => s.values)]);
    else {
      current.plot.destroy();
      current = draw(el, next);
      shape = nextShape;
    }
    el.setAttribute('data-updated', String(Date.now()));
  });
});
