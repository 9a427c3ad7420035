// Covers the streaming JSON walk of large request bodies: whatever the chunking, it finds the values and containers JSON.parse finds, hands on a tapped value's exact text, refuses what JSON.parse refuses (at the right position in the whole text) and never holds a value longer than its limit.
import t from 'tap';
import { JsonSyntaxError, JsonValueTooLong, JsonWalker, type JsonPath } from './json-walk.js';
import { limits } from '../../../limits/limits.js';

/** Walks `text` in chunks of `size`, taking whole every container under a key `whole`. */
function walked(text: string, size: number) {
  const values: [JsonPath, unknown][] = [];
  const opened: string[] = [];
  let tapped = '';
  const walker = new JsonWalker({
    whole: (p) => p[p.length - 1] === 'whole',
    value: (p, v) => void values.push([p, v]),
    open: (p, kind) => void opened.push(`${kind}:${p.join('.')}`),
    close: (p, kind) => void opened.push(`/${kind}:${p.join('.')}`),
    tap: (p) => (p.join('.') === 'tap' ? (s) => (tapped += s) : undefined),
  });
  for (let i = 0; i < text.length; i += size) walker.push(text.slice(i, i + size));
  walker.end();
  return { values, opened, tapped };
}

const text = JSON.stringify({
  a: 'x"y\\',
  n: -1.5e3,
  l: [true, null, { b: [] }],
  whole: { c: [1, { d: '}' }] },
  tap: { e: ['[', { f: 2 }], g: 'h' },
  last: 0,
});

t.test('any chunking finds the same values, containers and tapped text', async (t) => {
  const once = walked(text, text.length);
  t.same(once.values, [
    [['a'], 'x"y\\'],
    [['n'], -1500],
    [['l', 0], true],
    [['l', 1], null],
    [['whole'], { c: [1, { d: '}' }] }],
    [['tap', 'e', 0], '['],
    [['tap', 'e', 1, 'f'], 2],
    [['tap', 'g'], 'h'],
    [['last'], 0],
  ]);
  t.ok(once.opened.includes('array:l.2.b') && once.opened.includes('/object:'));
  t.equal(once.tapped, JSON.stringify(JSON.parse(text).tap));
  for (const size of [1, 2, 3, 7, 16]) t.same(walked(text, size), once, `chunks of ${size}`);
});

t.test('what JSON.parse refuses is refused, at its position in the whole text', async (t) => {
  for (const [bad, at] of [
    ['{"a": tru}', 6],
    ['{"a": 1,}', 8],
    ['{"a" 1}', 5],
    ['{"a": [1 2]}', 9],
    ['{"a": 1} x', 9],
    ['{"a": "b', 8],
    ['{"whole": {"c": }}', 10],
  ] as const) {
    t.throws(() => JSON.parse(bad), `JSON.parse refuses ${bad}`);
    for (const size of [1, bad.length]) {
      const error = t.throws(() => walked(bad, size)) as JsonSyntaxError;
      t.ok(error instanceof JsonSyntaxError, bad);
      t.equal(error.at, at, `${bad} in chunks of ${size}`);
    }
  }
});

t.test('a value taken whole longer than the limit is refused before it is held', async (t) => {
  const walker = new JsonWalker({ whole: (p) => p.length > 0, value: () => t.fail('no value') });
  walker.push('{"a": "');
  const error = t.throws(() => walker.push('x'.repeat(limits.jsonWholeValueMaxChars + 1)));
  t.ok(error instanceof JsonValueTooLong);
  t.same((error as JsonValueTooLong).path, ['a']);
});
