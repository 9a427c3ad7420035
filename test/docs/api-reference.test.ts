// Covers the API reference in docs/api/ against the OpenAPI document the server serves: every
// path and method the document lists has a section heading in one of the reference's pages, and
// every path a heading names is one the server has, so the two cannot drift apart.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { startTestServer } from '../helpers/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const referenceDir = path.join(root, 'docs/api');
const httpMethods = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];

/** `METHOD /path` for each heading such as `### GET, PUT, DELETE /organizations/{id}`. */
function documentedOperations(): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of readdirSync(referenceDir).filter((n) => n.endsWith('.md'))) {
    const text = readFileSync(path.join(referenceDir, name), 'utf8');
    for (const match of text.matchAll(/^#{2,4} ((?:[A-Z]+, )*[A-Z]+) (\/\S*)$/gm)) {
      for (const method of match[1]!.split(', ')) found.set(`${method} ${match[2]}`, name);
    }
  }
  return found;
}

const server = await startTestServer(t);

t.test('every operation of the served OpenAPI document has a section in docs/api/', async (t) => {
  const answer = await server.call('GET', '/api/v1/openapi.yaml');
  t.equal(answer.status, 200);
  const doc = parse(answer.raw) as { paths: Record<string, Record<string, unknown>> };
  const served = new Set<string>();
  for (const [p, operations] of Object.entries(doc.paths)) {
    for (const method of Object.keys(operations).map((m) => m.toUpperCase())) {
      if (httpMethods.includes(method)) served.add(`${method} ${p}`);
    }
  }
  t.ok(served.size > 40, `the document lists ${served.size} operations`);
  const documented = documentedOperations();
  const missing = [...served].filter((op) => !documented.has(op)).sort();
  t.same(missing, [], 'operations without a section in docs/api/');
  // The document does not list itself among its paths; its section is in health.md.
  const unknown = [...documented.keys()].filter((op) => !served.has(op) && op !== 'GET /openapi.yaml').sort();
  t.same(unknown, [], 'sections in docs/api/ naming an operation the server does not have');
});

t.test('every page of the reference is linked from its index', async (t) => {
  const index = readFileSync(path.join(referenceDir, 'README.md'), 'utf8');
  for (const name of readdirSync(referenceDir).filter((n) => n.endsWith('.md') && n !== 'README.md')) {
    t.ok(index.includes(`(${name})`), `README.md links ${name}`);
  }
});

/** The anchor a markdown heading gets: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

t.test('every citation of docs/api/ in the code and docs names a page and section that exist', async (t) => {
  // A clone is searched from its top, with its untracked files: the compiled tests run from
  // .test-output/build, which a clone ignores, so a search there finds nothing. A copy that is
  // no checkout (CI tests one) is searched where the tests run, as the files .gitignore does not
  // exclude.
  const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: root, encoding: 'utf8' });
  const inCheckout = top.status === 0;
  const grep = spawnSync(
    'git',
    [
      'grep',
      // --no-index reads .gitignore only when asked to (--exclude-standard).
      ...(inCheckout ? ['--untracked'] : ['--no-index', '--exclude-standard']),
      '-ohIE',
      String.raw`docs/api/[a-z0-9-]+\.md(#[a-z0-9-]+)?`,
    ],
    {
      cwd: inCheckout ? top.stdout.trim() : root,
      encoding: 'utf8',
    },
  );
  const cited = new Set(grep.stdout.split('\n').filter(Boolean));
  t.ok(cited.size > 20, `${cited.size} distinct citations found`);
  const broken: string[] = [];
  for (const citation of cited) {
    const [page, anchor] = citation.replace('docs/api/', '').split('#') as [string, string | undefined];
    let text: string;
    try {
      text = readFileSync(path.join(referenceDir, page), 'utf8');
    } catch {
      broken.push(`${citation}: no such page`);
      continue;
    }
    const anchors = [...text.matchAll(/^#{1,4} (.+)$/gm)].map((m) => anchorOf(m[1]!));
    if (anchor && !anchors.includes(anchor)) broken.push(`${citation}: no such section`);
  }
  t.same(broken, [], 'citations that lead nowhere');
});
