// Covers the folder graph in docs/architecture.md: it is exactly what `npm run deps` prints for
// this tree (a test fails when an import moved and the document was not written anew), and
// writing it replaces only the block between its markers.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { architectureFile, endMarker, runDeps, startMarker, withGraph } from '../../scripts/deps-doc.js';

t.test('docs/architecture.md holds the graph the tree gives (else run npm run deps)', async (t) => {
  const { output, status } = runDeps();
  t.equal(status, 0, 'no two folders depend on each other');
  t.match(output, /→/, 'the graph has edges');
  const document = readFileSync(architectureFile, 'utf8');
  t.equal(document, withGraph(document, output));
});

t.test('writing the graph keeps everything around the markers', async (t) => {
  const before = `# Doc\n\nText.\n\n${startMarker}\n\n\`\`\`\nold → graph  1\n\`\`\`\n\n${endMarker}\n\nAfter.\n`;
  t.equal(
    withGraph(before, 'a → b  2\n'),
    `# Doc\n\nText.\n\n${startMarker}\n\n\`\`\`\na → b  2\n\`\`\`\n\n${endMarker}\n\nAfter.\n`,
  );
  t.throws(() => withGraph('# No markers\n', 'a → b  2\n'), /lacks the markers/);
});
