// Covers what POST /config/apply does for the directories of the instances a file names: a file
// poller's and a file writer's missing directories are made (and its parents) before they start,
// so they run; a directory blocked by a file is not made and the answer says so, with the
// instance's failed start and its reason; a plan makes nothing; applying again finds them there.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { stringify } from 'yaml';
import { startTestServer } from '../helpers/server.js';

const server = await startTestServer(t);
const root = mkdtempSync(path.join(tmpdir(), 'pier-apply-dirs-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const blocked = path.join(root, 'blocked');
writeFileSync(blocked, 'a file where a directory should be');

const file = {
  pier_config: 1,
  instances: [
    {
      type: 'file-poller',
      name: 'acme-outbox',
      settings: {
        base_directory: path.join(root, 'partners/acme/outbox'),
        processed_directory: path.join(root, 'partners/acme/sent'),
        path_pattern: '{from}/{to}/{filename}',
      },
    },
    {
      type: 'file-writer',
      name: 'acme-inbox',
      settings: { directory: path.join(root, 'partners/acme/inbox') },
    },
    {
      type: 'file-poller',
      name: 'blocked-outbox',
      settings: {
        base_directory: path.join(blocked, 'outbox'),
        processed_directory: path.join(root, 'sent-2'),
        path_pattern: '{from}/{to}/{filename}',
      },
    },
  ],
};
const document = stringify(file);

t.test('a plan makes no directory', async (t) => {
  const plan = await server.call('POST', '/api/v1/config/plan', { body: { document } });
  t.equal(plan.status, 200, plan.raw);
  t.notOk(existsSync(path.join(root, 'partners')));
});

t.test('apply makes the directories, the instances run, the blocked one says why', async (t) => {
  const applied = await server.call('POST', '/api/v1/config/apply', { body: { document } });
  t.equal(applied.status, 200, applied.raw);
  const { directories, instances } = applied.body.data;
  const byPath = Object.fromEntries(
    directories.map((d: { path: string; outcome: string; error?: string }) => [d.path, [d.outcome, d.error]]),
  );
  t.same(byPath[path.join(root, 'partners/acme/outbox')], ['made', undefined]);
  t.same(byPath[path.join(root, 'partners/acme/sent')], ['made', undefined]);
  t.same(byPath[path.join(root, 'partners/acme/inbox')], ['made', undefined]);
  t.same(byPath[path.join(blocked, 'outbox')], ['failed', 'a file of that name is in the way']);
  t.equal(statSync(path.join(root, 'partners/acme/outbox')).mode & 0o777, 0o750);

  const outcome = Object.fromEntries(
    instances.map((i: { name: string; outcome: string; error: string | null }) => [
      i.name,
      [i.outcome, i.error],
    ]),
  );
  t.same(outcome['acme-outbox'], ['running', null]);
  t.same(outcome['acme-inbox'], ['running', null]);
  t.equal(outcome['blocked-outbox'][0], 'error');
  t.match(outcome['blocked-outbox'][1], /outbox/, 'the reason names the directory');

  const services = (await server.call('GET', '/api/v1/services')).body.data;
  const status = (name: string) => services.find((s: { name: string }) => s.name === name)?.status;
  t.equal(status('acme-outbox'), 'running');
  t.equal(status('acme-inbox'), 'running');
});

t.test('applying again finds them there', async (t) => {
  const again = await server.call('POST', '/api/v1/config/apply', { body: { document } });
  t.equal(again.status, 200, again.raw);
  t.same(
    again.body.data.directories
      .filter((d: { instance: string }) => d.instance !== 'blocked-outbox')
      .map((d: { outcome: string }) => d.outcome),
    ['present', 'present', 'present'],
  );
  t.same(again.body.data.changes, [], 'nothing changed');
});
