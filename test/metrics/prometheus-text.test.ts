// Covers the tests' Prometheus text-format parser: families with HELP and TYPE, escaped label values, histograms' suffixed samples, NaN and Inf as Prometheus reads them, and the refusal of malformed lines, so a scrape test cannot pass on output Prometheus would reject.
import t from 'tap';
import { parsePrometheusText, valueOf } from '../helpers/prometheus-text.js';

t.test('families, labels with escapes, histograms and special values', async (t) => {
  const m = parsePrometheusText(
    [
      '# HELP a_total Things, with a \\\\ backslash',
      '# TYPE a_total counter',
      'a_total{x="q\\"uote",y="new\\nline"} 3',
      'a_total{x="plain",y=""} 4 1700000000000',
      '# TYPE h_seconds histogram',
      'h_seconds_bucket{le="0.1"} 1',
      'h_seconds_bucket{le="+Inf"} 2',
      'h_seconds_sum 0.3',
      'h_seconds_count 2',
      '# TYPE g gauge',
      'g Nan',
      'g{s="inf"} +Inf',
    ].join('\n'),
  );
  t.equal(m.get('a_total')?.help, 'Things, with a \\ backslash');
  t.equal(valueOf(m, 'a_total', { x: 'q"uote', y: 'new\nline' }), 3);
  t.equal(valueOf(m, 'a_total', { x: 'plain' }), 4);
  t.equal(valueOf(m, 'h_seconds_count'), 2);
  t.equal(valueOf(m, 'h_seconds_bucket', { le: '+Inf' }), 2);
  t.equal(valueOf(m, 'g', { s: 'inf' }), Infinity);
  t.ok(Number.isNaN(m.get('g')!.samples[0]!.value));
  t.equal(valueOf(m, 'absent_total'), 0);
  t.throws(() => valueOf(m, 'a_total'), /2 samples of a_total/);
});

t.test('malformed lines are refused', async (t) => {
  const bad = [
    'undeclared_total 1',
    '# TYPE a counter\na{x="1"} one',
    '# TYPE a counter\na{x="1} 1',
    '# TYPE a counter\na{1x="1"} 1',
    '# TYPE a counter\na{x="1",x="2"} 1',
    '# TYPE a counter\na{x="\\q"} 1',
    '# TYPE a counter\na 1 2 3',
    '# TYPE a countr',
    '# TYPE a counter\na_bucket 1',
  ];
  for (const text of bad) t.throws(() => parsePrometheusText(text), JSON.stringify(text));
});
