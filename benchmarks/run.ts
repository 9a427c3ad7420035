/**
 * `npm run bench -- <name>`: runs benchmarks/<name>.ts in its own process and passes through
 * its one JSON line of figures (progress goes to stderr).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const dir = import.meta.dirname;
const name = process.argv[2];
const available = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3));
if (!name || !existsSync(path.join(dir, `${name}.ts`))) {
  console.error(`usage: npm run bench -- <name>\navailable: ${available.join(', ')}`);
  process.exit(2);
}
const child = spawn(
  process.execPath,
  ['--import', 'tsx', path.join(dir, `${name}.ts`), ...process.argv.slice(3)],
  {
    stdio: 'inherit',
  },
);
child.on('exit', (code) => process.exit(code ?? 1));
