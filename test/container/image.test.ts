// Covers pier's container image (deploy/container/Containerfile) with real containers: built from the release
// tarball `npm pack` makes, on a Node 24 base, it runs as a non-root user on a read-only root file system with
// its data directory a volume and answers its HEALTHCHECK on /ready; configured by environment variables and a
// `pier config apply` file, it receives an AS2 message that `openssl cms` signed and encrypted, writes the
// document into the volume and answers a receipt openssl verifies; `podman stop` drains within the deadline
// (a message in flight gets its receipt, exit code 0); a new container on the same volume and database keeps
// what the first stored.
import { existsSync } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t, { type Test } from 'tap';
import { createTestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/flow.js';
import { freePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wait.js';
import { as2Message, as2Setup, documentsInVolume, post, verifiedReceipt } from './as2-peer.js';
import { buildPierImage } from './image.js';
import { containerTest, mustPodman, podman, uniqueName } from './podman.js';

const secretKey = 'container-test-secret-key';
const shutdownSeconds = 10;

containerTest(t, 'the image: build, run, AS2, stop, restart', 25 * 60_000, async (t) => {
  const built = await buildPierImage();
  t.comment(
    `base ${built.base.image} ${built.base.made} in ${built.base.seconds} s; npm pack ${built.packSeconds} s; ` +
      `image ${built.image} built in ${built.buildSeconds} s`,
  );
  const size = Number(await mustPodman(['image', 'inspect', built.image, '--format', '{{.Size}}']));
  t.comment(`image size ${Math.round(size / 1e6)} MB`);

  await t.test('the image says how it runs', async (t) => {
    const inspect = (format: string) => mustPodman(['image', 'inspect', built.image, '--format', format]);
    const config = JSON.parse(await inspect('{{json .Config}}')) as {
      User: string;
      Volumes: Record<string, unknown>;
      StopSignal: string;
    };
    const healthcheck = JSON.parse(await inspect('{{json .HealthCheck}}')) as { Test?: string[] } | null;
    t.equal(config.User, '10001:10001', 'a user of its own, not root');
    t.same(Object.keys(config.Volumes), ['/var/lib/pier'], 'the data directory is a volume');
    t.match(healthcheck?.Test?.join(' '), /\/ready/, 'its health check asks /ready');
    t.equal(config.StopSignal, 'SIGTERM');
  });

  const db = await createTestDatabase();
  t.teardown(() => db.drop());
  const work = await tempDir(t, 'pier-container-');
  const httpPort = await freePort();
  const as2Port = await freePort();
  const setup = as2Setup(secretKey, as2Port);
  t.teardown(() => setup.fixtures.remove());
  const configFile = path.join(work, 'pier.yaml');
  await writeFile(configFile, setup.config, { mode: 0o644 });
  const volume = uniqueName('data');
  await mustPodman(['volume', 'create', volume]);
  const containers: string[] = [];
  t.teardown(async () => {
    if (containers.length > 0) await podman(['rm', '--force', '--time', '0', ...containers]);
    await podman(['volume', 'rm', '--force', volume]);
  });
  const dataOnHost = await mustPodman(['volume', 'inspect', volume, '--format', '{{.Mountpoint}}']);
  const base = `http://127.0.0.1:${httpPort}`;

  /** Starts a container on the volume and database; resolves once /ready answers 200, with the seconds that took. */
  async function start(t: Test): Promise<{ name: string; seconds: number }> {
    const name = uniqueName('pier');
    const started = Date.now();
    await mustPodman([
      'run',
      '--detach',
      '--name',
      name,
      // The machine's PostgreSQL and the test's AS2 client are on loopback.
      '--network',
      'host',
      '--read-only',
      '--volume',
      `${volume}:/var/lib/pier`,
      '--volume',
      `${configFile}:/etc/pier/pier.yaml:ro`,
      ...['--env', `DATABASE_URL=${db.url}`, '--env', `PIER_SECRET_KEY=${secretKey}`],
      ...['--env', `HTTP_PORT=${httpPort}`, '--env', 'METRICS_PORT=off'],
      ...[
        '--env',
        'PIER_CONFIG_FILE=/etc/pier/pier.yaml',
        '--env',
        `PIER_SHUTDOWN_TIMEOUT=${shutdownSeconds}`,
      ],
      built.image,
    ]);
    containers.push(name);
    try {
      await waitFor(
        async () => (await fetch(`${base}/ready`).catch(() => undefined))?.status === 200,
        'the container ready',
        180_000,
        100,
      );
    } catch (error) {
      t.comment((await podman(['logs', name])).stdout.slice(-4000));
      throw error;
    }
    return { name, seconds: Math.round((Date.now() - started) / 100) / 10 };
  }

  const first = await start(t);
  t.comment(`cold start to /ready: ${first.seconds} s`);

  await t.test('non-root, read-only root, healthy, Node 24', async (t) => {
    t.equal(await mustPodman(['exec', first.name, 'id', '-u']), '10001');
    t.equal(await mustPodman(['inspect', first.name, '--format', '{{.HostConfig.ReadonlyRootfs}}']), 'true');
    const write = await podman(['exec', first.name, 'touch', '/opt/pier/written']);
    t.not(write.code, 0, 'the root file system refuses a write');
    t.match(write.stderr, /Read-only file system/);
    t.equal((await podman(['healthcheck', 'run', first.name])).code, 0, 'the HEALTHCHECK passes');
    t.match(await mustPodman(['exec', first.name, 'node', '--version']), /^v24\./);
    const logs = await podman(['logs', first.name]);
    t.match(logs.stdout, /Instance as2-receiver\/as2-in/, 'the configuration file was applied');
  });

  await t.test('an AS2 message in, its document in the volume, a receipt openssl verifies', async (t) => {
    const message = as2Message(setup.fixtures, 'container-1', 'po-1.x12', 'ISA*container~\r\n');
    const answer = await post(`http://127.0.0.1:${as2Port}/as2`, message);
    t.equal(answer.status, 200, 'the AS2 message is answered', {
      body: answer.body.toString('latin1').slice(0, 500),
    });
    const receipt = verifiedReceipt(setup.fixtures, answer);
    t.match(
      receipt,
      /Disposition: automatic-action\/MDN-sent-automatically; processed/i,
      'processed, signed by bob',
    );
    const file = path.join(dataOnHost, documentsInVolume, 'po-1.x12');
    await waitFor(() => existsSync(file), 'the document in the volume', 60_000, 100);
    t.equal(await readFile(file, 'latin1'), 'ISA*container~\r\n', 'the document as sent');
    t.equal((await stat(file)).uid, 10001, 'written by the container user');
  });

  await t.test('podman stop drains within the deadline: a message in flight gets its receipt', async (t) => {
    const message = as2Message(
      setup.fixtures,
      'container-2',
      'po-2.x12',
      `ISA*${'in flight '.repeat(400)}~\r\n`,
    );
    let stopSeconds = 0;
    let stopped: Promise<string> | undefined;
    const answer = await post(`http://127.0.0.1:${as2Port}/as2`, message, async () => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const stopAt = Date.now();
      stopped = mustPodman(['stop', '--time', String(shutdownSeconds + 20), first.name]).then((out) => {
        stopSeconds = (Date.now() - stopAt) / 1000;
        return out;
      });
      await new Promise((resolve) => setTimeout(resolve, 600));
      const ready = await fetch(`${base}/ready`);
      t.equal(ready.status, 503, '/ready answers 503 while draining');
      t.match(await ready.json(), { status: 'draining' });
    });
    t.equal(answer.status, 200, 'the message in flight is answered');
    t.match(verifiedReceipt(setup.fixtures, answer), /processed/i, 'with a verified receipt');
    await stopped;
    t.ok(
      stopSeconds < shutdownSeconds,
      `stopped in ${stopSeconds.toFixed(1)} s, within ${shutdownSeconds} s`,
    );
    t.equal(await mustPodman(['inspect', first.name, '--format', '{{.State.ExitCode}}']), '0', 'exit code 0');
    t.match((await podman(['logs', first.name])).stdout, /"msg":"pier stopped"/);
    t.equal(
      await readFile(path.join(dataOnHost, documentsInVolume, 'po-2.x12'), 'latin1'),
      `ISA*${'in flight '.repeat(400)}~\r\n`,
      'its document was written before the stop',
    );
  });

  await t.test('a new container on the same volume and database keeps the data', async (t) => {
    await mustPodman(['rm', first.name]);
    const second = await start(t);
    t.comment(`warm start to /ready: ${second.seconds} s`);
    const listed = await mustPodman(['exec', second.name, 'pier', 'messages', 'list', '--no-header']);
    t.equal(listed.split('\n').length, 2, `both messages are listed:\n${listed}`);
    t.match(listed, /po-1\.x12/);
    t.match(listed, /po-2\.x12/);
    t.equal(
      await readFile(path.join(dataOnHost, documentsInVolume, 'po-1.x12'), 'latin1'),
      'ISA*container~\r\n',
      "the first container's document is still in the volume",
    );
    const logs = (await podman(['logs', second.name])).stdout;
    t.match(logs, /No changes\./, 'the configuration file applied again changes nothing');
    const again = await post(
      `http://127.0.0.1:${as2Port}/as2`,
      as2Message(setup.fixtures, 'container-3', 'po-3.x12', 'ISA*again~\r\n'),
    );
    t.equal(again.status, 200);
    const file = path.join(dataOnHost, documentsInVolume, 'po-3.x12');
    await waitFor(() => existsSync(file), 'the third document in the volume', 60_000, 100);
    await mustPodman(['stop', '--time', '30', second.name]);
  });
});
