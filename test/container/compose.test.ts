// Covers deploy/container/compose.yaml as podman-compose runs it: pier's image and PostgreSQL (a stand-in for
// the public postgres image, built here) start with their volumes; PostgreSQL's health check passes and pier
// answers /ready on the published port with its database in the PostgreSQL container, read-only and not root;
// `down` and `up` again keep what both stored (a service account made before is listed after); `down --volumes`
// removes the volumes.
import path from 'node:path';
import t from 'tap';
import { checkoutRoot } from '../helpers/checkout.js';
import { freePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wait.js';
import { buildPierImage, buildPostgresImage } from './image.js';
import { containerTest, mustPodman, podman, runTool, uniqueName } from './podman.js';

const composeFile = path.join(checkoutRoot, 'deploy/container/compose.yaml');

containerTest(t, 'compose: pier and PostgreSQL', 25 * 60_000, async (t) => {
  const built = await buildPierImage();
  const postgres = await buildPostgresImage(built.base);
  t.comment(`PostgreSQL stand-in ${postgres.image} built in ${postgres.buildSeconds} s`);
  const project = uniqueName('compose').replaceAll('-', '');
  const httpPort = await freePort();
  const env = {
    ...process.env,
    PIER_IMAGE: built.image,
    PIER_POSTGRES_IMAGE: postgres.image,
    PIER_DB_PASSWORD: 'compose-database-password',
    PIER_SECRET_KEY: 'compose-secret-key',
    PIER_HTTP_PORT: String(httpPort),
    PIER_AS2_PORT: String(await freePort()),
  };
  const compose = (args: string[]) =>
    runTool('podman-compose', ['--project-name', project, '--file', composeFile, ...args], { env });
  t.teardown(() => compose(['down', '--volumes']));
  const ready = () =>
    waitFor(
      async () => (await fetch(`http://127.0.0.1:${httpPort}/ready`).catch(() => undefined))?.status === 200,
      'pier ready on the published port',
      240_000,
      200,
    );
  const pier = `${project}_pier_1`;
  const pg = `${project}_postgres_1`;

  const up = await compose(['up', '--detach']);
  t.equal(up.code, 0, 'podman-compose up', { stderr: up.stderr.slice(-2000) });
  await ready().catch(async (error: unknown) => {
    t.comment((await podman(['logs', pier])).stdout.slice(-3000));
    throw error;
  });
  t.pass('pier answers /ready on the published port');
  t.equal((await podman(['healthcheck', 'run', pg])).code, 0, "PostgreSQL's health check passes");
  t.equal((await podman(['healthcheck', 'run', pier])).code, 0, "pier's health check passes");
  t.equal(
    await mustPodman(['inspect', pier, '--format', '{{.HostConfig.ReadonlyRootfs}}']),
    'true',
    'read-only',
  );
  t.equal(await mustPodman(['exec', pier, 'id', '-u']), '10001', 'not root');
  const health = (await (await fetch(`http://127.0.0.1:${httpPort}/health`)).json()) as { database: string };
  t.equal(health.database, 'up', 'its database is the PostgreSQL container');
  await mustPodman(['exec', pier, 'pier', 'service-accounts', 'create', 'compose-check']);

  const down = await compose(['down']);
  t.equal(down.code, 0, 'podman-compose down keeps the volumes', { stderr: down.stderr.slice(-2000) });
  const volumes = await mustPodman(['volume', 'ls', '--format', '{{.Name}}']);
  t.match(volumes, `${project}_pier-data`, "pier's volume outlives its container");
  t.match(volumes, `${project}_postgres-data`, "PostgreSQL's volume outlives its container");

  const again = await compose(['up', '--detach']);
  t.equal(again.code, 0, 'podman-compose up again', { stderr: again.stderr.slice(-2000) });
  await ready();
  t.match(
    await mustPodman(['exec', pier, 'pier', 'service-accounts', 'list']),
    /compose-check/,
    'what was stored before is there after',
  );

  const removed = await compose(['down', '--volumes']);
  t.equal(removed.code, 0, 'podman-compose down --volumes', { stderr: removed.stderr.slice(-2000) });
  t.notMatch(
    await mustPodman(['volume', 'ls', '--format', '{{.Name}}']),
    project,
    'down --volumes removes them',
  );
});
