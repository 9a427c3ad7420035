/* global document, window, uPlot */
// Draws the dashboard's messages-per-hour chart with uPlot from the data the server put on
// the chart element (data-chart); the table beneath carries the same totals as text.
'use strict';

document.addEventListener('DOMContentLoaded', () => {
  const el = document.getElementById('chart');
  if (!el || typeof uPlot === 'undefined') return;
  const data = JSON.parse(el.getAttribute('data-chart'));
  const dark = window.matchMedia('(prefers-color-scheme: dark)').matches;
  const palette = [
    '#0a58ca',
    '#d63384',
    '#198754',
    '#dc3545',
    '#fd7e14',
    '#6f42c1',
    '#20c997',
    '#6c757d',
    '#ffc107',
    '#0dcaf0',
    '#adb5bd',
  ];
  const axis = { stroke: dark ? '#9da7b3' : '#57606a', grid: { stroke: dark ? '#30363d' : '#e5e7eb' } };
  const width = () => Math.max(280, el.clientWidth - 16);
  const plot = new uPlot(
    {
      width: width(),
      height: 240,
      series: [
        {},
        ...data.series.map((s, i) => ({ label: s.label, stroke: palette[i % palette.length], width: 2 })),
      ],
      axes: [axis, axis],
      scales: { x: { time: true } },
    },
    [data.hours, ...data.series.map((s) => s.values)],
    el,
  );
  window.addEventListener('resize', () => plot.setSize({ width: width(), height: 240 }));
});
