// Covers `pier config export|plan|apply` against a running server on the same database: the
// export is the API's, a plan prints field by field and changes nothing, a refused file prints
// every problem by its path and exits 1, and an instance whose configuration changed is
// restarted, by the supervisor of the server that runs it (from the CLI) or of the API's process;
// a prune deleting more than half of the install is applied only with --confirm-prune and its count.
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { cliActor } from '../../cli/session.js';
import { sql } from '../helpers/database.js';
import { pierShell } from '../helpers/pier-shell.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const { db, dataDir, pier } = await pierShell(t);
const server = await startTestServer(t, { db, env: { PIER_DATA_DIR: dataDir } });
const work = await mkdtemp(path.join(os.tmpdir(), 'pier-config-cli-'));
const outbox = path.join(work, 'out');

const created = await server.call('POST', '/api/v1/plugins/configs?type=file-writer', {
  body: { name: 'outbox', directory: outbox },
});
if (created.status !== 201) throw new Error(created.raw);
await server.call('POST', '/api/v1/partners', { body: { name: 'acme' } });

const service = async () =>
  (await server.call('GET', '/api/v1/services')).body.data.find((s: { name: string }) => s.name === 'outbox');
await waitFor(
  async () => ((await service()).status === 'running' ? true : undefined),
  'outbox running',
  30_000,
);

t.test('export prints the same file as GET /config, as YAML', async (t) => {
  const run = await pier(['config', 'export']);
  t.equal(run.code, 0, run.stderr);
  t.same(parse(run.stdout), (await server.call('GET', '/api/v1/config')).body.data);
  const one = await pier(['config', 'export', '--partner', 'acme']);
  t.same(
    parse(one.stdout).partners.map((p: { name: string }) => p.name),
    ['acme'],
  );
  t.notOk('instances' in parse(one.stdout) && parse(one.stdout).instances.length > 0, 'no instances');
});

t.test('plan prints the changes and changes nothing; apply restarts the changed instance', async (t) => {
  const file = parse((await pier(['config', 'export'])).stdout);
  file.instances[0].settings.directory = path.join(work, 'out2');
  file.partners[0].display_name = 'ACME Corporation';
  const where = path.join(work, 'pier.yaml');
  await writeFile(where, stringify(file));

  const plan = await pier(['config', 'plan', where]);
  t.equal(plan.code, 0, plan.stderr);
  t.equal(
    plan.stdout,
    [
      '~ partners acme',
      '    display_name: "acme" → "ACME Corporation"',
      '~ instances outbox',
      `    settings.directory: ${JSON.stringify(outbox)} → ${JSON.stringify(path.join(work, 'out2'))}`,
      '0 to create, 2 to update, 0 to delete.',
      '',
    ].join('\n'),
  );
  t.equal((await server.call('GET', '/api/v1/partners')).body.data.partners[0].display_name, 'acme');

  const since = (await service()).state_since;
  const apply = await pier(['config', 'apply', where]);
  t.equal(apply.code, 0, apply.stderr);
  t.match(apply.stdout, /^Instance file-writer\/outbox: restart requested$/m);
  const restarted = await waitFor(
    async () => {
      const s = await service();
      return s.state_since !== since && s.status === 'running' && !s.restart_needed ? s : undefined;
    },
    'the server restarts outbox',
    30_000,
  );
  t.equal(restarted.status, 'running', 'restarted by the server that runs it');
  const actors = await sql<{ actor: string; kind: string }>(
    db.url,
    "select actor, kind from audit_event where kind in ('partner', 'plugin-config') and action = 'update'",
  );
  t.same(
    actors.map((a) => a.actor),
    [cliActor(), cliActor()],
    'audited under the login that applied',
  );
  t.equal((await pier(['config', 'plan', where])).stdout, 'No changes.\n');

  // Through the API the process's own supervisor restarts it, before the answer.
  file.instances[0].settings.directory = path.join(work, 'out3');
  const answer = await server.call('POST', '/api/v1/config/apply', { body: { document: stringify(file) } });
  t.equal(answer.status, 200, answer.raw);
  t.same(answer.body.data.instances, [
    { type: 'file-writer', name: 'outbox', outcome: 'restarted (running)', error: null },
  ]);
});

t.test('a refused file: every problem by its path on stderr, exit 1, nothing applied', async (t) => {
  const file = parse((await pier(['config', 'export'])).stdout);
  file.instances[0].settings.directory = 'relative/dir';
  file.partners[0].interchange_ids = [{ qualifier: 'ZZ' }];
  const where = path.join(work, 'bad.yaml');
  await writeFile(where, stringify(file));
  const run = await pier(['config', 'apply', where]);
  t.equal(run.code, 1);
  t.equal(
    run.stderr,
    [
      'partners[0].interchange_ids[0].id: Required',
      'pier: The configuration file has 1 problem(s); nothing was applied',
      '',
    ].join('\n'),
  );
  delete file.partners[0].interchange_ids;
  await writeFile(where, stringify(file));
  const second = await pier(['config', 'apply', where]);
  t.equal(second.code, 1);
  t.match(second.stderr, /^instances\[0\]\.settings\.directory: Must be an absolute path$/m);
  const missing = await pier(['config', 'plan', path.join(work, 'nope.yaml')]);
  t.equal(missing.code, 1);
  t.match(missing.stderr, /Cannot read .*nope\.yaml/);
});

t.test('--prune deleting more than half needs --confirm-prune with its count', async (t) => {
  const where = path.join(work, 'nothing.yaml');
  await writeFile(where, 'pier_config: 1\n');
  const refused = await pier(['config', 'apply', where, '--prune']);
  t.equal(refused.code, 1);
  t.equal(
    refused.stderr,
    "pier: Applying would delete 2 of the install's 2 record(s), more than half; nothing was applied. To delete them, run again with --confirm-prune 2\n",
  );
  t.equal((await server.call('GET', '/api/v1/partners')).body.data.partners.length, 1, 'nothing deleted');
  const plan = await pier(['config', 'plan', where, '--prune']);
  t.match(plan.stdout, /^0 to create, 0 to update, 2 to delete\.$/m, 'plan shows the count');

  const confirmed = await pier(['config', 'apply', where, '--prune', '--confirm-prune', '2']);
  t.equal(confirmed.code, 0, confirmed.stderr);
  t.match(confirmed.stdout, /^- partners acme$/m);
  t.match(confirmed.stdout, /^- instances outbox$/m);
  t.same((await server.call('GET', '/api/v1/partners')).body.data.partners, []);
});
