// Covers the JSON reader's fast path for plain segments: what it takes is written as JSON.parse would have it, and what JSON.parse refuses in a segment's annotations, or reads differently (a key twice, escapes, numbers, deep nesting), is still refused or read the same, also after a segment of the same tag was read fast.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { annotate } from './annotate.js';
import { EdiJsonError } from './form.js';
import { ediToJsonText, jsonTextToEdi } from './translate.js';

const edi = readFileSync(
  path.join(import.meta.dirname, '../../test/fixtures/edi-json/x12-850-00401-tilde-lf.edi'),
);
const json = ediToJsonText(edi, annotate);
const cur = '{"tag":"CUR","elements":["BY","EUR"],"positions":["CUR01","CUR02"]}';
// A second CUR after the first, so the fast path has seen the tag's annotations once.
const withSecond = (segment: string) => json.replace(`${cur},\n`, `${cur},\n${segment},\n`);
const ediWithSecond = (line: string) =>
  Buffer.from(edi.toString('latin1').replace('CUR*BY*EUR~\n', `CUR*BY*EUR~\n${line}~\n`), 'latin1');

t.test('the annotated corpus file comes back the same', async (t) => {
  t.ok(json.includes(cur), 'the fixture has the CUR this test edits');
  t.ok(jsonTextToEdi(json).equals(edi));
});

t.test('segments it takes are written as JSON.parse reads them', async (t) => {
  const cases: [string, string][] = [
    [cur, 'CUR*BY*EUR'],
    ['{"tag":"CUR","elements":["BY","USD"],"positions":["CUR01","CUR02"]}', 'CUR*BY*USD'],
    ['{ "tag" : "CUR" , "elements" : ["BY","EUR"] }', 'CUR*BY*EUR'],
    ['{"elements":["BY","EUR"],"tag":"CUR","names":[null,["a","b"],{"x":"y"}]}', 'CUR*BY*EUR'],
    ['{"tag":"CUR","elements":["BY","EUR"],"tag":"CTT"}', 'CTT*BY*EUR'],
    ['{"tag":"CUR","elements":["B\\u0059","EUR"]}', 'CUR*BY*EUR'],
    ['{"tag":"CUR","elements":["BY","EUR"],"positions":[1,2]}', 'CUR*BY*EUR'],
    ['{"tag":"CUR","elements":[]}', 'CUR'],
    ['{"tag":"CUR","elements":[""]}', 'CUR*'],
  ];
  for (const [segment, line] of cases) {
    const back = jsonTextToEdi(withSecond(segment));
    // The set's segment count is not checked here: only the bytes written.
    t.equal(back.toString('latin1'), ediWithSecond(line).toString('latin1'), segment);
  }
});

t.test('what JSON.parse refuses is refused', async (t) => {
  const cases = [
    '{"tag":"CUR","elements":["BY","EUR"],"positions":[1 2]}',
    '{"tag":"CUR","elements":["BY","EUR"],"positions":["CUR01",]}',
    '{"tag":"CUR","elements":["BY","EUR"],}',
    '{"tag":"CUR","elements":["BY","EUR"],"positions":["CUR\u000101"]}',
    '{"tag":"CUR","elements":["BY","EUR"],"positions":["CUR\\x01"]}',
    '{"tag":"CUR","elements":["BY","E\nUR"]}',
    '{"tag":"CUR","elements":["BY","EUR"],"names":nul}',
  ];
  for (const segment of cases)
    t.throws(
      () => jsonTextToEdi(withSecond(segment)),
      { name: 'EdiJsonError', message: /is not valid JSON/ },
      segment,
    );
});

t.test('separators in values are refused as before; deep nesting is no crash', async (t) => {
  t.throws(() => jsonTextToEdi(withSecond('{"tag":"CUR","elements":["B*Y","EUR"]}')), {
    message: /holds the separator "\*", which X12 cannot carry/,
  });
  for (const segment of ['{"tag":"CUR","elements":["]}', '{"tag":"CUR","elements":["BY"]]}'])
    t.throws(() => jsonTextToEdi(withSecond(segment)), EdiJsonError, segment);
  const deep = `{"tag":"CUR","elements":["BY","EUR"],"names":${'['.repeat(5000)}${']'.repeat(5000)}}`;
  try {
    t.ok(jsonTextToEdi(withSecond(deep)).length > 0, 'deep annotations are read by the general path');
  } catch (error) {
    t.ok(error instanceof EdiJsonError, 'or refused with a clear error');
  }
});
