// Covers the deadlines of lifecycle steps: a start that never answers (its thread spinning) and a connection check that never answers fail their instance with an alert within the deadline, while other instances start, answer and stop meanwhile, and shutdown stays prompt.
import { pino } from 'pino';
import t from 'tap';
import type { PluginType } from '../../actors/index.js';
import { migratedDatabase, sql } from '../../test/helpers/database.js';
import { fixtureModule } from '../../test/helpers/fixture-module.js';
import { waitFor } from '../../test/helpers/wait.js';
import { SecretBox } from '../secrets/secret-box.js';
import type { ActorCore } from './core-port.js';
import type { ChildSpec } from './child-spec.js';
import { InstanceUnresponsive, StartFailed } from './errors.js';
import { Supervisor } from './supervisor.js';

const { orm, url } = await migratedDatabase(t);

const fixture = (name: string) => fixtureModule(import.meta.url, `./fixtures/${name}`);

/** These fixtures claim nothing: they hold nothing to give back. */
const idleCore: ActorCore = { releaseHeldBy: async () => {} };

const spec: ChildSpec = {
  startTimeoutMs: 3000,
  shutdownTimeoutMs: 500,
  endTimeoutMs: 1000,
  checkTimeoutMs: 1500,
};

function supervisor(entries: Partial<Record<PluginType, string>>, childSpec = spec) {
  return new Supervisor({
    orm,
    secrets: SecretBox.fromText('test'),
    core: idleCore,
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
    storage: { backend: 'local', directory: '/tmp' },
    userAgent: 'pier-test',
    entries: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, fixture(v!)])),
    childSpec,
  });
}

let configs = 0;
async function configure(type: PluginType, enabled = false): Promise<string> {
  const name = `d${++configs}`;
  await sql(url, "insert into plugin_config (type, name, enabled, settings) values ($1, $2, $3, '{}')", [
    type,
    name,
    enabled,
  ]);
  return name;
}

async function alertsFor(name: string) {
  return sql(url, "select details from alert where subject_name = $1 and code = 'plugin_failed'", [name]);
}

/** The promise's outcome, or `late` once `ms` have passed: a wait that fails cannot hang the file. */
function within<T>(ms: number, promise: Promise<T>): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

t.test('a start that spins: error and alert at the deadline; others go on meanwhile', async (t) => {
  // Five seconds, not three: two other starts must answer before it, each a new thread that
  // loads its code while the spinning one holds a core (a clean CI run once took over three).
  const s = supervisor(
    { 'file-writer': 'spin-on-start', 'http-poster': 'idle' },
    { ...spec, startTimeoutMs: 5000 },
  );
  t.teardown(() => s.stopAll());
  const stuck = await configure('file-writer');
  const other = await configure('http-poster');
  const began = Date.now();
  const starting = s.act('file-writer', stuck, 'start').catch((e: unknown) => e);

  // While the stuck start waits for its deadline, another instance is created and started.
  const next = await configure('http-poster', true);
  const followed = await within(2500, s.changed('http-poster', next));
  t.match(followed, { status: 'running' }, 'a configuration created meanwhile starts at once');
  const started = await within(2500, s.act('http-poster', other, 'start'));
  t.match(started, { status: 'running' }, 'an action on another instance answers meanwhile');
  t.equal(s.statusOf('file-writer', stuck)?.status, 'starting', 'and the stuck one is still starting');

  const failure = await within(8000, starting);
  const took = Date.now() - began;
  t.ok(failure instanceof StartFailed, 'the start answers: failed');
  t.equal((failure as StartFailed).reason, 'did not become ready within 5 s');
  t.ok(took >= 4900 && took < 7000, `answered at its deadline (${took} ms)`);
  t.match(s.statusOf('file-writer', stuck), { status: 'error', error: 'did not become ready within 5 s' });
  t.match(await alertsFor(stuck), [{ details: { reason: 'did not become ready within 5 s' } }]);
  await waitFor(() => s.unendedThreads === 2, 'the spinning thread ended, the two posters running', 3000);

  const stopping = Date.now();
  t.not(await within(5000, s.stopAll()), 'late', 'shutdown completes');
  t.ok(Date.now() - stopping < 3000, 'promptly');
  t.equal(s.unendedThreads, 0, 'no thread left behind');
});

t.test('shutdown while a start spins waits for that start no longer than its deadline', async (t) => {
  const s = supervisor({ 'file-writer': 'spin-on-start' });
  const stuck = await configure('file-writer', true);
  const starting = s.changed('file-writer', stuck);
  await new Promise((r) => setTimeout(r, 300));
  const began = Date.now();
  t.not(await within(6000, s.stopAll()), 'late', 'shutdown completes');
  t.ok(Date.now() - began < 4500, `within the start deadline and the end time (${Date.now() - began} ms)`);
  t.match(await starting, { status: 'error' });
  t.equal(s.unendedThreads, 0);
});

t.test('a connection check that never answers: error, alert, its thread ended', async (t) => {
  const s = supervisor({ 'as2-sender': 'hang-on-check' });
  t.teardown(() => s.stopAll());
  const sender = await configure('as2-sender');
  await s.act('as2-sender', sender, 'start');
  const asked = s
    .ask('as2-sender', sender, {
      type: 'check_connection',
      endpoint: 'http://127.0.0.1:9/as2',
      certificates: [],
      tls: { tls_trusted: [], tls_verify: true, tls_client: null },
      headers: {},
      now: new Date(),
    })
    .catch((e: unknown) => e);
  const answer = await within(5000, asked);
  t.ok(answer instanceof InstanceUnresponsive, 'the check answers: the sender did not');
  t.equal((answer as InstanceUnresponsive).reason, 'did not answer a check_connection within 1.5 s');
  t.match(s.statusOf('as2-sender', sender), {
    status: 'error',
    error: 'did not answer a check_connection within 1.5 s',
  });
  t.equal((await alertsFor(sender)).length, 1, 'plugin_failed raised');
  t.equal(s.unendedThreads, 0, 'its thread was ended');
});
