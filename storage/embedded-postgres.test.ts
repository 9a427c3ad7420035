// Covers the check before the embedded PostgreSQL starts: a binary the postgres user cannot
// reach gives an error that says why and what to do, where the library's unhandled spawn
// error used to crash the process.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { checkRunnableAs, postgresUserIds } from './embedded-postgres.js';

const ids = postgresUserIds();
// The check runs as another user, which needs root and a postgres user (as on the CI machines).
const canSwitch = process.getuid?.() === 0 && ids !== undefined;

t.test(
  'a binary behind a directory closed to others is refused with the reason and the fix',
  { skip: !canSwitch },
  async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pier-pg-bin-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const closed = path.join(dir, 'closed');
    mkdirSync(closed);
    const binary = path.join(closed, 'true');
    copyFileSync('/bin/true', binary);
    chmodSync(binary, 0o755);
    chmodSync(dir, 0o755);

    chmodSync(closed, 0o700);
    t.throws(() => checkRunnableAs(binary, ids!), {
      message: `the postgres user (uid ${ids!.uid}) cannot run ${binary} (EACCES): every directory on that path must be open to others (chmod o+rx), or set DATABASE_URL to a PostgreSQL server`,
    });

    chmodSync(closed, 0o755);
    t.doesNotThrow(() => checkRunnableAs(binary, ids!), 'the same binary, reachable, passes');
  },
);
