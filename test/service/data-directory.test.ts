// Covers one data directory: a `pier` command pointed at a data directory that was
// never made (and no DATABASE_URL) says so and exits 1 without making one, `pier init` makes
// one, payloads go to <data dir>/payloads by default (two data directories from one working
// directory never share a store), and an install that kept them in ./payloads keeps them there
// and is told how to move them.
import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { runPier, runPierProcess } from '../helpers/pier-shell.js';
import { spawnPier } from '../helpers/process.js';

const noDatabase = { DATABASE_URL: '', PIER_SECRET_KEY: 'data-directory-key' };

t.test('a command on a data directory that was never made says so, exits 1 and makes nothing', async (t) => {
  const dir = await tempDir(t, 'pier-no-data-');
  const mistyped = path.join(dir, 'dta');
  for (const command of [
    ['users', 'list'],
    ['settings', 'show'],
    ['api-tokens', 'list'],
  ]) {
    const run = await runPier(command, { ...process.env, ...noDatabase, PIER_DATA_DIR: mistyped });
    t.equal(run.code, 1, `${command.join(' ')} exits 1`);
    t.equal(
      run.stderr,
      `pier: No pier data directory at ${mistyped} (it holds no embedded database) and DATABASE_URL is not set. ` +
        'Set PIER_DATA_DIR to the data directory of your pier server, or DATABASE_URL to its database; ' +
        '`pier init` makes a new data directory there.\n',
      `${command.join(' ')} says why and what to do`,
    );
    t.equal(run.stdout, '', 'and prints nothing else');
  }
  t.notOk(existsSync(mistyped), 'no data directory was made');
});

t.test('pier init makes the data directory once; commands then use it', async (t) => {
  const dir = await tempDir(t, 'pier-init-');
  // The embedded server runs as the postgres user under root: it must reach the directory.
  await chmod(dir, 0o755);
  const dataDir = path.join(dir, 'data');
  const env = {
    ...noDatabase,
    PIER_SECRET_KEY: '',
    PIER_DATA_DIR: dataDir,
    PIER_EMBEDDED_PG_PORT: String(await freePort()),
  };
  const made = await runPierProcess(['init'], env, dir);
  t.equal(made.code, 0, `init exits 0 ${made.stderr}`);
  t.equal(
    made.stdout,
    `Made the embedded database and secret.key in the data directory ${dataDir}.\n`,
    'init says what it made',
  );
  t.ok(
    existsSync(path.join(dataDir, 'postgres', 'PG_VERSION')) && existsSync(path.join(dataDir, 'secret.key')),
    'and made it',
  );
  const again = await runPierProcess(['init'], env, dir);
  t.equal(
    again.stdout,
    `The data directory ${dataDir} is ready; nothing to do.\n`,
    'a second init changes nothing',
  );
  const users = await runPierProcess(['users', 'list'], env, dir);
  t.equal(users.code, 0, `a command then works ${users.stderr}`);
  t.equal(users.stdout, 'No users.\n', 'on the new database');
});

t.test(
  'payloads live under each data directory; an old ./payloads is kept and the log says how to move it',
  async (t) => {
    const dir = await tempDir(t, 'pier-payload-dirs-');
    const servers = [];
    for (const name of ['one', 'two']) {
      const db = await createTestDatabase();
      t.teardown(() => db.drop());
      servers.push(await spawnPier(t, { databaseUrl: db.url, dataDir: path.join(dir, name), cwd: dir }));
    }
    t.ok(existsSync(path.join(dir, 'one', 'payloads')), 'the first data directory has its payload store');
    t.ok(existsSync(path.join(dir, 'two', 'payloads')), 'and the second its own');
    t.notOk(existsSync(path.join(dir, 'payloads')), 'nothing under the working directory');
    t.notOk(
      servers.some((s) => s.logLines.some((l) => /where pier kept them before/.test(l.msg))),
      'no word of moving anything',
    );

    // An install from before: its payloads are in ./payloads under the working directory.
    const old = await tempDir(t, 'pier-payload-legacy-');
    await mkdir(path.join(old, 'payloads', 'messages'), { recursive: true });
    const db = await createTestDatabase();
    t.teardown(() => db.drop());
    const dataDir = path.join(old, 'data');
    const legacy = await spawnPier(t, { databaseUrl: db.url, dataDir, cwd: old });
    const told = legacy.logLines.find((l) => /where pier kept them before/.test(l.msg));
    t.equal(
      told?.msg,
      `payloads are kept in ${path.join(old, 'payloads')}, where pier kept them before they moved into the data directory; ` +
        `to move them, stop pier, run \`mv ${path.join(old, 'payloads')} ${path.join(dataDir, 'payloads')}\` and start it again ` +
        `(or keep them there: \`pier settings set storage_local_directory=${path.join(old, 'payloads')}\`)`,
      'the log says where the payloads are and how to move them',
    );
    t.notOk(existsSync(path.join(dataDir, 'payloads')), 'the old directory stays the store');
  },
);
