// Covers the checkout's lint as one file of the suite, so that it runs beside the other files instead of before them all: `npm run lint` (eslint with the folder boundaries, prettier, no two folders depending on each other, no cited spec or issue numbers) passes, and what it printed is shown when it does not.
import { spawn } from 'node:child_process';
import t from 'tap';
import { checkoutRoot } from './helpers/checkout.js';

t.setTimeout(600_000);

const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
  const lint = spawn('npm', ['run', '--silent', 'lint'], {
    cwd: checkoutRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  lint.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  lint.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  lint.on('error', reject);
  lint.on('close', (code) => resolve({ code, output }));
});
t.equal(code, 0, 'npm run lint passes', { output: output.slice(-20_000) });
