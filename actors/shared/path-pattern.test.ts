// Covers path patterns and file globs: the rules a pattern must follow, reading parties out of paths, building safe paths, and the checks both pollers make of their patterns and processed directory.
import t from 'tap';
import {
  fillPattern,
  globMatcher,
  pathMatcher,
  patternProblem,
  pollerPatternProblems,
  processedDirectoryProblem,
} from './path-pattern.js';

t.test('pattern rules', async (t) => {
  const poller = ['from', 'to', 'filename'] as const;
  const cases: [string, string | undefined][] = [
    ['{to}/{filename}', undefined],
    ['{from}/{to}/{filename}', undefined],
    ['{from}-{to}-{filename}', undefined],
    ['inbox/{to}/{filename}', undefined],
    ['', 'Must not be empty'],
    ['/{to}/{filename}', 'Must be a relative path'],
    ['{to}//{filename}', 'Must not contain empty, . or .. segments'],
    ['../{filename}', 'Must not contain empty, . or .. segments'],
    ['{to}/{id}', 'Unknown placeholder {id}; use {from}, {to}, {filename}'],
    ['{to}/{to}/{filename}', 'The placeholder {to} appears twice'],
    ['{to}/x}{filename}', 'Has an unmatched { or }'],
    ['{from}/{to}', 'Must contain {filename}'],
    ['{filename}/{to}', '{filename} must be in the last part of the path'],
  ];
  for (const [pattern, problem] of cases)
    t.equal(patternProblem(pattern, poller), problem, pattern || '(empty)');
  t.equal(
    patternProblem('{from}/{id}-{filename}', ['from', 'to', 'filename', 'id']),
    undefined,
    'the writer knows {id}',
  );
});

t.test('reading parties and the file name out of a path', async (t) => {
  t.same(pathMatcher('{to}/{filename}')('globex/order.edi'), { to: 'globex', filename: 'order.edi' });
  t.same(pathMatcher('{from}-{to}-{filename}')('acme-globex-a-b.txt'), {
    from: 'acme',
    to: 'globex',
    filename: 'a-b.txt',
  });
  t.equal(pathMatcher('{to}/{filename}')('order.edi'), undefined, 'too shallow');
  t.equal(pathMatcher('{to}/{filename}')('a/b/c.edi'), undefined, 'too deep');
  t.same(
    pathMatcher('in.{to}/{filename}')('in.globex/x'),
    { to: 'globex', filename: 'x' },
    'literal dots match only dots',
  );
  t.equal(pathMatcher('in.{to}/{filename}')('inXglobex/x'), undefined);
});

t.test('building a path: each value one safe segment', async (t) => {
  t.equal(fillPattern('{from}/{filename}', { from: 'acme', filename: 'order.edi' }), 'acme/order.edi');
  t.equal(
    fillPattern('{from}/{filename}', { from: '..', filename: '../../etc/passwd' }),
    '_/.._.._etc_passwd',
  );
  t.equal(fillPattern('{to}/{filename}', { to: 'a\u0000b', filename: 'x\ny' }), 'a_b/x_y');
});

t.test('file name globs', async (t) => {
  const any = globMatcher('*.*');
  t.ok(any('order.edi'));
  t.notOk(any('noextension'), '*.* needs a dot');
  const edi = globMatcher('INV_??.edi');
  t.ok(edi('INV_01.edi'));
  t.notOk(edi('INV_1.edi'));
  t.notOk(edi('INV_01xedi'), 'a dot is a dot');
});

t.test("a poller's pattern settings: the parties the pattern does not name must be set", async (t) => {
  const s = { path_pattern: '{to}/{filename}', file_pattern: '*', from: '', to: '' };
  t.same(pollerPatternProblems(s), { from: 'Required when path_pattern has no {from}' });
  t.same(pollerPatternProblems({ ...s, from: 'acme' }), {});
  t.same(pollerPatternProblems({ ...s, path_pattern: '{filename}', file_pattern: 'a/b' }), {
    from: 'Required when path_pattern has no {from}',
    to: 'Required when path_pattern has no {to}',
    file_pattern: 'Must match file names, without /',
  });
  t.same(pollerPatternProblems({ ...s, path_pattern: '/x/{filename}' }), {
    path_pattern: 'Must be a relative path',
  });
});

t.test('a processed directory may neither be in the watched one nor hold it', async (t) => {
  const cases: [string, string, string | undefined][] = [
    ['/data/done', '/data/in', undefined],
    ['/data/in-done', '/data/in', undefined],
    ['/data/in', '/data/in/', 'Must not be remote_directory or inside it'],
    ['/data/in/done', '/data/in', 'Must not be remote_directory or inside it'],
    ['/data', '/data/in', 'Must not contain remote_directory'],
    ['/', '/data/in', 'Must not contain remote_directory'],
  ];
  for (const [processed, watched, problem] of cases)
    t.equal(
      processedDirectoryProblem(processed, watched, 'remote_directory'),
      problem,
      `${processed} beside ${watched}`,
    );
});
