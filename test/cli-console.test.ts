// Covers what `pier serve` says to a person: started in a terminal (a pseudo-terminal made by
// util-linux's `script`), it prints a banner with the web UI's address, the data directory and,
// on a fresh install, the first-run page with the setup code the server wrote to its data
// directory, and its log lines are readable lines, not JSON; started with its output piped (a
// service), it writes JSON lines only, and the setup code appears in none of them.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createTestDatabase } from './helpers/database.js';
import { tempDir } from './helpers/flow.js';
import { freePort } from './helpers/free-port.js';
import { spawnPier } from './helpers/process.js';
import { waitFor } from './helpers/wait.js';

const root = path.resolve(import.meta.dirname, '..');

async function database(t: Test) {
  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  return db.url;
}

t.test('in a terminal: a banner for a person and readable log lines', async (t) => {
  const dataDir = await tempDir(t, 'pier-console-');
  const port = await freePort();
  const command = `${process.execPath} ${path.join(root, 'bin/pier-sources.js')} serve`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: dataDir,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: await database(t),
      PIER_DATA_DIR: dataDir,
      PIER_SECRET_KEY: 'console-test-key',
      HTTP_PORT: String(port),
      HTTP_HOST: '127.0.0.1',
      METRICS_PORT: 'off',
      TERM: 'dumb',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  t.teardown(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // ended already
    }
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => output.includes('Stop with Ctrl+C.'), 'the banner', 60_000);
  const code = (await readFile(path.join(dataDir, 'setup-code'), 'utf8')).trim();
  t.match(output, `Pier is running. Web UI: http://localhost:${port}/ui`);
  t.match(output, `Data directory: ${dataDir}`);
  t.match(output, `First run: open http://localhost:${port}/ui/setup and create the first administrator`);
  t.match(output, `with the setup code ${code} (also in ${path.join(dataDir, 'setup-code')})`);
  const serving = output.split(/\r?\n/).find((l) => l.includes('pier is serving'));
  t.ok(serving, 'the serving line is there');
  t.notOk(serving!.trimStart().startsWith('{'), `a readable line, not JSON: ${serving}`);
});

t.test('piped, as a service runs it: JSON lines only, and no setup code in them', async (t) => {
  const dataDir = await tempDir(t, 'pier-console-');
  const pier = await spawnPier(t, {
    databaseUrl: await database(t),
    dataDir,
    cwd: dataDir,
    command: [process.execPath, path.join(root, 'bin/pier-sources.js')],
  });
  const code = (await readFile(path.join(dataDir, 'setup-code'), 'utf8')).trim();
  const line = await waitFor(
    () => pier.logLines.find((l) => String(l.msg).startsWith('no user exists yet')),
    'the first-run log line',
  );
  t.match(line, { setup_code_file: path.join(dataDir, 'setup-code') }, 'the log names the file');
  t.notMatch(JSON.stringify(pier.logLines), code, 'the code is in no log line');
  await pier.kill('SIGTERM');
});
