// Covers the supervisor against misbehaving fixture workers, whose claims run on their own connections to a real database: failed starts, a line logged while starting (kept until ready, not a violation), crashes, exits, hangs, bad messages, busy instances, released claims, and an actor's log lines reaching the log at the process's level and above only.
import { pino } from 'pino';
import t from 'tap';
import type { PluginType } from '../../actors/index.js';
import { createTestDatabase, sql } from '../../test/helpers/database.js';
import { fixtureModule } from '../../test/helpers/fixture-module.js';
import { waitFor } from '../../test/helpers/wait.js';
import { migrate, openDatabase } from '../../storage/db.js';
import { SecretBox } from '../secrets/secret-box.js';
import { Dispatcher } from '../dispatch/dispatcher.js';
import type { ActorCore } from './core-port.js';
import { ActionRefused, StartFailed, UnknownInstance } from './errors.js';
import { Supervisor } from './supervisor.js';

const db = await createTestDatabase();
const orm = await openDatabase(db.url);
await migrate(orm);
t.teardown(async () => {
  await orm.close();
  await db.drop();
});

const fixture = (name: string) => fixtureModule(import.meta.url, `./fixtures/${name}`);

const node = 1;
/** The core's part the supervisor asks for: giving back what an ended thread held (the dispatcher's, on the database). */
const dispatcher = new Dispatcher({
  orm,
  node,
  now: () => new Date(),
  logger: pino({ level: 'silent' }),
  maxDispatches: 10,
  onWork: () => {},
});
t.teardown(() => dispatcher.stop());
const core: ActorCore = {
  releaseHeldBy: (target, name, reason) => dispatcher.releaseHeldBy(target, name, reason),
};

/** Queues `count` messages' deliveries for `target`, as an acceptance leaves them. */
async function queue(target: string, count: number): Promise<void> {
  await sql(
    db.url,
    `with m as (
       insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type,
                            source_name, accepted_by, created_at, updated_at)
       select gen_random_uuid(), 'InProgress', 'dispatched', 'outbound', 'a', 'b', 'f.txt', 'as2-receiver', 'in', 1,
              now(), now()
         from generate_series(1, $2::int)
       returning id)
     insert into delivery (message_id, target, state, dispatches, created_at, updated_at)
     select id, $1, 'queued', 1, now(), now() from m`,
    [target, count],
  );
}

/** The deliveries of `target` in each state, and the reasons those taken back were given. */
async function deliveriesOf(target: string): Promise<{ delivered: number; released: string[] }> {
  const rows = await sql(db.url, 'select state, last_error from delivery where target = $1', [target]);
  return {
    delivered: rows.filter((r) => r.state === 'delivered').length,
    released: rows.filter((r) => r.state === 'queued' && r.last_error).map((r) => String(r.last_error)),
  };
}

let configs = 0;
async function configure(type: PluginType): Promise<string> {
  const name = `i${++configs}`;
  await sql(db.url, "insert into plugin_config (type, name, enabled, settings) values ($1, $2, true, '{}')", [
    type,
    name,
  ]);
  return name;
}

function supervisor(
  entries: Partial<Record<PluginType, string>>,
  shutdownTimeoutMs = 2000,
  logger = pino({ level: 'silent' }),
) {
  return new Supervisor({
    orm,
    secrets: SecretBox.fromText('test'),
    core,
    logger,
    now: () => new Date(),
    // Targets claim and record on their own connections, as in a running server.
    node,
    flowDatabaseUrl: db.url,
    storage: { backend: 'local', directory: '/tmp' },
    userAgent: 'pier-test',
    entries: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, fixture(v!)])),
    childSpec: { startTimeoutMs: 5000, shutdownTimeoutMs, endTimeoutMs: 2000, checkTimeoutMs: 5000 },
  });
}

async function alertsFor(name: string) {
  return sql(
    db.url,
    "select code, summary, details from alert where subject_name = $1 and code = 'plugin_failed'",
    [name],
  );
}

t.test('a well-behaved actor starts, works, stops, restarts', async (t) => {
  const s = supervisor({ 'file-writer': 'well-behaved' });
  const name = await configure('file-writer');
  await queue(name, 2);
  const running = await s.act('file-writer', name, 'start');
  t.match(running, {
    type: 'file-writer',
    name,
    status: 'running',
    error: null,
    controllable: true,
    actions: ['stop', 'restart'],
  });
  await waitFor(async () => (await deliveriesOf(name)).delivered >= 2, 'the results of the first claim');
  t.same((await deliveriesOf(name)).released, [], 'nothing held: nothing given back');
  const restarted = await s.act('file-writer', name, 'restart');
  t.equal(restarted.status, 'running');
  const stopped = await s.act('file-writer', name, 'stop');
  t.match(stopped, { status: 'stopped', actions: ['start'] });
  await t.rejects(s.act('file-writer', name, 'stop'), ActionRefused, 'stop on a stopped instance is refused');
  t.same(await alertsFor(name), [], 'a stop raises no alert');
});

t.test("an actor's log lines reach the log at the process's level and above, no others", async (t) => {
  for (const [level, expected] of [
    ['debug', ['a debug line', 'a info line', 'a warn line', 'a error line']],
    ['warn', ['a warn line', 'a error line']],
    ['silent', []],
  ] as const) {
    const lines: { msg: string; instance?: string }[] = [];
    const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const s = supervisor({ 'file-writer': 'log-levels' }, 2000, logger);
    const name = await configure('file-writer');
    await s.act('file-writer', name, 'start');
    // The actor logs as it stops: a line it posted arrives before the stop's answer.
    await s.act('file-writer', name, 'stop');
    t.same(
      lines.filter((l) => l.msg.endsWith(' line')).map((l) => l.msg),
      expected,
      `at ${level}`,
    );
  }
});

t.test('a line an actor logs while it starts is logged after its start, and it runs', async (t) => {
  const lines: { msg: string; instance?: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const s = supervisor({ 'file-writer': 'log-on-start' }, 2000, logger);
  const name = await configure('file-writer');
  const started = await s.act('file-writer', name, 'start');
  t.match(started, { status: 'running', error: null }, 'not failed for an event before ready');
  await waitFor(() => lines.some((l) => l.msg === 'a line from the start'), 'the line logged');
  await s.act('file-writer', name, 'stop');
});

t.test('a start that fails leaves error with the reason and raises plugin_failed', async (t) => {
  const s = supervisor({ 'file-writer': 'fail-init' });
  const name = await configure('file-writer');
  const failure = await s.act('file-writer', name, 'start').catch((e: unknown) => e);
  t.ok(failure instanceof StartFailed);
  t.equal((failure as StartFailed).reason, 'the directory /nowhere does not exist');
  t.match(s.statusOf('file-writer', name), {
    status: 'error',
    error: 'the directory /nowhere does not exist',
    actions: ['start', 'restart'],
  });
  const alerts = await alertsFor(name);
  t.equal(alerts.length, 1);
  t.match(alerts[0], { code: 'plugin_failed', details: { reason: 'the directory /nowhere does not exist' } });
  const again = await s.act('file-writer', name, 'restart').catch((e: unknown) => e);
  t.ok(again instanceof StartFailed, 'restart from error tries again, and fails again');
  t.equal((await alertsFor(name)).length, 2);
});

t.test('a module that throws while loading, and one that never gets ready', async (t) => {
  const s = supervisor({ 'file-writer': 'throw-on-import' });
  const a = await configure('file-writer');
  const thrown = await s.act('file-writer', a, 'start').catch((e: unknown) => e);
  t.match((thrown as StartFailed).reason, /the module could not load/);
  const b = await configure('http-poster');
  const s2 = new Supervisor({
    orm,
    secrets: SecretBox.fromText('test'),
    core,
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
    node,
    flowDatabaseUrl: db.url,
    storage: { backend: 'local', directory: '/tmp' },
    userAgent: 'pier-test',
    entries: { 'http-poster': fixture('never-ready') },
    childSpec: { startTimeoutMs: 400, shutdownTimeoutMs: 500, endTimeoutMs: 2000, checkTimeoutMs: 5000 },
  });
  const starting = s2.act('http-poster', b, 'start').catch((e: unknown) => e);
  await waitFor(() => s2.statusOf('http-poster', b)?.status === 'starting', 'starting');
  const busy = await s2.act('http-poster', b, 'stop').catch((e: unknown) => e);
  t.ok(busy instanceof ActionRefused, 'an action on a starting instance is refused');
  t.match(busy, { status: 'starting', allowed: [] });
  const timedOut = await starting;
  t.equal((timedOut as StartFailed).reason, 'did not become ready within 400 ms');
  t.equal(s2.statusOf('http-poster', b)?.status, 'error');
});

t.test('a crash mid-delivery: error, alert, claims given back; other instances carry on', async (t) => {
  const s = supervisor({ 'file-writer': 'crash-on-work', 'http-poster': 'well-behaved' });
  const healthy = await configure('http-poster');
  await queue(healthy, 2);
  await s.act('http-poster', healthy, 'start');
  await waitFor(async () => (await deliveriesOf(healthy)).delivered === 2, 'the healthy instance working');
  const crashing = await configure('file-writer');
  await queue(crashing, 1);
  await s.act('file-writer', crashing, 'start');
  const failed = await waitFor(() => {
    const v = s.statusOf('file-writer', crashing);
    return v?.status === 'error' && v;
  }, 'the crash');
  t.match(failed.error, /the actor broke while delivering/);
  const released = await waitFor(async () => {
    const { released } = await deliveriesOf(crashing);
    return released.length > 0 && released;
  }, 'released claims');
  t.equal(released.length, 1, 'the claimed delivery is given back');
  t.match(released[0], /the instance failed/);
  await waitFor(async () => (await alertsFor(crashing)).length === 1, 'the alert');
  await queue(healthy, 3);
  s.poke(healthy);
  await waitFor(
    async () => (await deliveriesOf(healthy)).delivered === 5,
    'the healthy instance still working',
  );
  t.equal(s.statusOf('http-poster', healthy)?.status, 'running');
  await s.stopAll();
});

t.test('exit 0 and a message outside the protocol are failures too', async (t) => {
  const exits = supervisor({ 'file-writer': 'exit-on-work' });
  const a = await configure('file-writer');
  await exits.act('file-writer', a, 'start');
  const ended = await waitFor(() => {
    const v = exits.statusOf('file-writer', a);
    return v?.status === 'error' && v;
  }, 'the exit');
  t.equal(ended.error, 'the thread exited with code 0');

  const rude = supervisor({ 'file-writer': 'bad-message' });
  const b = await configure('file-writer');
  await rude.act('file-writer', b, 'start');
  const refused = await waitFor(() => {
    const v = rude.statusOf('file-writer', b);
    return v?.status === 'error' && v;
  }, 'the violation');
  t.equal(refused.error, 'the actor sent a message outside the channel protocol');
});

t.test('an actor that hangs on stop is ended after the shutdown time', async (t) => {
  const s = supervisor({ 'file-writer': 'hang-on-stop' }, 300);
  const name = await configure('file-writer');
  await s.act('file-writer', name, 'start');
  const started = Date.now();
  const view = await s.act('file-writer', name, 'stop');
  t.equal(view.status, 'stopped');
  t.ok(Date.now() - started < 3000, 'the stop did not wait for the actor');
});

t.test('unknown instances', async (t) => {
  const s = supervisor({ 'file-writer': 'well-behaved' });
  await t.rejects(s.act('file-writer', 'nope', 'start'), UnknownInstance);
  await sql(
    db.url,
    "insert into plugin_config (type, name, enabled, settings) values ('as2-sender', 'as2', true, '{}')",
  );
  await t.rejects(s.act('as2-sender', 'as2', 'start'), UnknownInstance, 'a type this build does not run');
  const listed = await s.list();
  t.notOk(
    listed.some((v) => v.type === 'as2-sender'),
    'not listed either',
  );
  t.ok(listed.every((v) => v.type === 'file-writer' || v.type === 'http-poster'));
});
