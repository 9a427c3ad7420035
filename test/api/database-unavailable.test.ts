// Covers the API's answer while PostgreSQL is away (an outage, or a failover before a node is primary): 503 DATABASE_UNAVAILABLE with Retry-After, /ready not ready, and normal answers again without a restart.
import path from 'node:path';
import t from 'tap';
import { tempDir } from '../helpers/flow.js';
import { spawnPier } from '../helpers/process.js';
import { databaseBehindProxy } from '../helpers/tcp-proxy.js';
import { waitFor } from '../helpers/wait.js';

const { proxy, url: throughProxy } = await databaseBehindProxy(t);

t.test(
  'while the database is away the API answers 503 with Retry-After and /ready is not ready',
  async (t) => {
    const dir = await tempDir(t, 'pier-db-away-');
    const pier = await spawnPier(t, {
      databaseUrl: throughProxy,
      dataDir: path.join(dir, 'data'),
      cwd: dir,
    });
    t.equal((await pier.call('GET', '/messages')).status, 200, 'answers before the outage');

    await proxy.cut();
    const answer = await fetch(`${pier.url}/api/v1/messages`);
    const body = (await answer.json()) as { data: null; error: { code: string; message: string } };
    t.equal(answer.status, 503);
    t.equal(answer.headers.get('retry-after'), '5');
    t.same(body, {
      data: null,
      error: {
        code: 'DATABASE_UNAVAILABLE',
        message:
          'The database does not answer (an outage or a failover); nothing was changed; try again in a moment',
      },
    });
    const ready = await fetch(`${pier.url}/ready`);
    t.equal(ready.status, 503);
    t.match(await ready.json(), { status: 'unready', database: 'down' });

    await proxy.restore();
    await waitFor(
      async () => (await pier.call('GET', '/messages')).status === 200,
      'answers again',
      20_000,
      200,
    );
    t.equal((await fetch(`${pier.url}/ready`)).status, 200, '/ready is ready again without a restart');
  },
);
