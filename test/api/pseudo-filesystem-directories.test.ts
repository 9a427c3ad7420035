// Covers directories on kernel pseudo-filesystems (/proc, /sys, /dev, also reached through `..`): refused on `directory`, `base_directory` and `processed_directory` with a validation failure, on create and update, and nothing stored.
import t from 'tap';
import { sql } from '../helpers/database.js';
import { startTestServer, type Answer } from '../helpers/server.js';

const server = await startTestServer(t);
const configs = '/api/v1/plugins/configs';
await server.call('POST', '/api/v1/organizations', { body: { name: 'acme' } });

/** The answer, or a failure of its own after `ms`: a request that never answers cannot hang the file. */
async function answered(request: Promise<Answer>, ms = 15_000): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([request, late]).finally(() => clearTimeout(timer));
}

const stored = async (name: string) =>
  (await sql(server.db.url, 'select count(*)::int as n from plugin_config where name = $1', [name]))[0]!.n;

t.test('a file writer into /proc, /sys or /dev is refused on directory', async (t) => {
  const cases: [string, string][] = [
    ['/sys/relbad', '/sys'],
    ['/dev/relbad', '/dev'],
    ['/dev', '/dev'],
    ['/tmp/../proc/relbad', '/proc'],
    ['//proc//relbad/', '/proc'],
    ['/proc/relbad', '/proc'],
  ];
  for (const [directory, top] of cases) {
    const made = await answered(
      server.call('POST', `${configs}?type=file-writer`, { body: { name: 'relbad', directory } }),
    );
    t.equal(made.status, 400, `${directory}: ${made.raw}`);
    t.same(made.body.error, {
      code: 'INVALID_INPUT',
      message: 'Validation failed',
      details: { directory: `Must not be on ${top}, a kernel pseudo-filesystem` },
    });
    t.equal(await stored('relbad'), 0, `${directory}: nothing stored`);
  }
  const gone = await server.call('GET', `${configs}/file-writer/relbad`);
  t.equal(gone.status, 404);
  const services = await answered(server.call('GET', '/api/v1/services'));
  t.notOk(
    (services.body.data as { name: string }[]).some((s) => s.name === 'relbad'),
    'no instance either',
  );
});

t.test("a file poller's directories are judged the same way", async (t) => {
  const made = await answered(
    server.call('POST', `${configs}?type=file-poller`, {
      body: {
        name: 'pollbad',
        base_directory: '/sys/kernel/in',
        processed_directory: '/srv/../proc/done',
        from: 'acme',
        enabled: false,
      },
    }),
  );
  t.equal(made.status, 400, made.raw);
  t.same(made.body.error.details, {
    base_directory: 'Must not be on /sys, a kernel pseudo-filesystem',
    processed_directory: 'Must not be on /proc, a kernel pseudo-filesystem',
  });
  t.equal(await stored('pollbad'), 0);
});

t.test('an update into /proc is refused and the stored directory stays', async (t) => {
  const made = await answered(
    server.call('POST', `${configs}?type=file-writer`, {
      body: { name: 'fine', directory: '/srv/out', enabled: false },
    }),
  );
  t.equal(made.status, 201, made.raw);
  const changed = await answered(
    server.call('PUT', `${configs}/file-writer/fine`, { body: { directory: '/proc/self/out' } }),
  );
  t.equal(changed.status, 400, changed.raw);
  t.same(changed.body.error.details, { directory: 'Must not be on /proc, a kernel pseudo-filesystem' });
  const kept = await server.call('GET', `${configs}/file-writer/fine`);
  t.equal(kept.body.data.directory, '/srv/out');
});

t.test('names that only begin like a pseudo-filesystem are directories like any other', async (t) => {
  const made = await answered(
    server.call('POST', `${configs}?type=file-writer`, {
      body: { name: 'lookalike', directory: '/srv/proc/../devices/sys', enabled: false },
    }),
  );
  t.equal(made.status, 201, made.raw);
});
