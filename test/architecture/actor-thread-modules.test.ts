// Covers what an actor thread loads: every actor's worker module (actors/*/worker.js, and the receiver's opening pool) imported in a fresh process loads no MikroORM, knex or lodash, which an actor thread never uses (it opens no ORM; its database connections are pg's) and which were about 600 of the thousand modules, and half the CPU, of each thread's start; the check itself fails on a module that does load MikroORM (storage/db.js).
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '../..');
const workers = readdirSync(path.join(root, 'actors'))
  .map((folder) => path.join(root, 'actors', folder, 'worker.js'))
  .filter((file) => existsSync(file));
workers.push(path.join(root, 'actors/as2-receiver/open-worker.js'));

/** Whoever loads these has pulled the ORM into a thread that opens none. */
const ormPackages = /node_modules\/(@mikro-orm\/[^/]+|knex|lodash)\//;

/** The packages of `ormPackages` that importing `file` loads, in a process of its own. */
function ormLoadedBy(file: string): string[] {
  // A worker module refuses to run outside a thread (it throws once loaded): its imports are what count.
  const script = `
import { registerHooks } from 'node:module';
const loaded = new Set();
registerHooks({ load(url, context, next) { loaded.add(url); return next(url, context); } });
await import(${JSON.stringify(pathToFileURL(file).href)}).catch(() => {});
process.stdout.write(JSON.stringify([...loaded]));
`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`importing ${file} failed: ${run.stderr}`);
  const packages = (JSON.parse(run.stdout) as string[]).map((url) => ormPackages.exec(url)?.[1]);
  return [...new Set(packages.filter((p) => p !== undefined))].sort();
}

t.test('no actor thread loads MikroORM, knex or lodash', async (t) => {
  t.ok(workers.length >= 10, `${workers.length} worker modules found`);
  for (const file of workers)
    t.same(ormLoadedBy(file), [], `${path.relative(root, file)} loads none of them`);
});

t.test('the check sees a module that loads MikroORM', async (t) => {
  t.same(ormLoadedBy(path.join(root, 'storage/db.js')).slice(0, 2), ['@mikro-orm/core', '@mikro-orm/knex']);
});
