// Covers that the repository needs nothing beside it: no source or test file names a relative path
// that leaves the checkout (such as ../shared), so `npm test` passes in any clone.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'fixtures' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|mjs|js)$/.test(entry.name)) out.push(full);
  }
  return out;
}

t.test('every relative path written in the code stays inside the repository', async (t) => {
  const files = sourceFiles(root);
  t.ok(files.length > 100, 'the code was found');
  const escapes: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/['"`]((?:\.\.\/)+[^'"`$]*)['"`]/g)) {
      const target = path.resolve(path.dirname(file), match[1]!);
      if (path.relative(root, target).startsWith('..')) {
        escapes.push(`${path.relative(root, file)}: ${match[1]}`);
      }
    }
  }
  t.same(escapes, [], 'no file reaches outside the checkout');
});

t.test('the AS2 captures the tests read are in the repository with their licence', async (t) => {
  const dir = path.join(root, 'test/fixtures/as2-line-endings');
  const names = readdirSync(dir);
  for (const name of [
    'LICENSE.txt',
    'README.md',
    'SOURCE.md',
    'from_mendelson',
    'from_openas2',
    'certificates',
  ]) {
    t.ok(names.includes(name), `${name} is kept`);
  }
  t.match(readFileSync(path.join(dir, 'LICENSE.txt'), 'utf8'), /MIT License/);
});
