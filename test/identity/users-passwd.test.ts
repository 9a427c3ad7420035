// Covers `pier users passwd NAME` (password from standard input, scrypt at rest, a new name
// becomes an administrator, too short refused) and `pier users role`, with audit rows that
// mark the password without any value.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { verifyPassword } from '../../api/auth/password.js';
import { createTestDatabase, sql } from '../helpers/database.js';
import { runPier, runPierProcess, type Run } from '../helpers/pier-shell.js';

const db = await createTestDatabase();
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pier-passwd-'));
t.teardown(async () => {
  await db.drop();
  await rm(dataDir, { recursive: true, force: true });
});
const env = { DATABASE_URL: db.url, PIER_DATA_DIR: dataDir };

/** The first password goes through a real process's standard input; the rest run in this process. */
async function pierProcess(input: string, ...args: string[]): Promise<Run> {
  return runPierProcess(args, env, dataDir, input);
}
const pier = (input: string, ...args: string[]): Promise<Run> =>
  runPier(args, { ...process.env, ...env }, input);

t.test('passwd makes a local administrator, then changes the password', async (t) => {
  const first = await pierProcess('first password 123\n', 'users', 'passwd', 'root');
  t.equal(first.code, 0, first.stderr);
  t.equal(first.stdout, 'Added administrator root with a password.\n');
  const [row] = await sql<{ role: string; password_hash: string }>(
    db.url,
    "select role, password_hash from app_user where name = 'root'",
  );
  t.equal(row!.role, 'admin');
  t.match(row!.password_hash, /^scrypt\$32768\$8\$1\$/);
  t.notMatch(row!.password_hash, 'first password');
  t.ok(await verifyPassword('first password 123', row!.password_hash));
  t.notOk(await verifyPassword('first password 124', row!.password_hash));

  const second = await pier('second password 456\n', 'users', 'passwd', 'root');
  t.equal(second.stdout, 'Password of root set.\n');
  const short = await pier('short\n', 'users', 'passwd', 'root');
  t.equal(short.code, 1);
  t.equal(short.stderr, 'pier: Validation failed: password: Must be at least 12 characters\n');

  const role = await pier('', 'users', 'role', 'root', 'operator');
  t.equal(role.stdout, 'User root has the role operator.\n');
  const badRole = await pier('', 'users', 'role', 'root', 'king');
  t.equal(badRole.stderr, 'pier: Validation failed: role: Must be admin, operator or viewer\n');

  const events = await sql<{ action: string; changes: unknown }>(
    db.url,
    "select action, changes from audit_event where kind = 'user' order by id",
  );
  t.same(
    events.map((e) => e.action),
    ['create', 'update', 'update', 'update'],
  );
  t.same(events[1]!.changes, [{ field: 'password', secret: true }]);
  t.same(events[3]!.changes, [{ field: 'role', old: 'admin', new: 'operator' }]);
  t.notMatch(JSON.stringify(events), 'scrypt');
});
