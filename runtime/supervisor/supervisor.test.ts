// Covers the supervisor against misbehaving fixture workers: failed starts, a line logged while starting (kept until ready, not a violation), crashes, exits, hangs, bad messages, busy instances, released claims, and an actor's log lines reaching the log at the process's level and above only.
import { pino } from 'pino';
import t from 'tap';
import type { PluginType } from '../../actors/index.js';
import { createTestDatabase, sql } from '../../test/helpers/database.js';
import { fixtureModule } from '../../test/helpers/fixture-module.js';
import { waitFor } from '../../test/helpers/wait.js';
import { migrate, openDatabase } from '../../storage/db.js';
import type { ClaimedDelivery } from '../../protocol/core-protocol.js';
import { SecretBox } from '../secrets/secret-box.js';
import type { ActorCore, HeldClaim } from './core-port.js';
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

/** Stands in for the dispatcher: hands out made-up deliveries and records what comes back. */
class RecordingCore implements ActorCore {
  next = 1;
  results: number[] = [];
  released: { claims: HeldClaim[]; reason: string }[] = [];
  async accept(): Promise<never> {
    throw new Error('not a source');
  }
  async claim(_target: unknown, limit: number): Promise<ClaimedDelivery[]> {
    return Array.from({ length: Math.min(limit, 2) }, () => ({
      delivery_id: this.next++,
      claim: 1,
      attempt: 1,
      message: {
        id: crypto.randomUUID(),
        from: 'a',
        to: 'b',
        file_name: 'f.txt',
        direction: 'outbound' as const,
      },
      payload: { stage: 'unpacked' as const, size_bytes: 1 },
    }));
  }
  async result(_target: unknown, list: { delivery_id: number }[]): Promise<boolean[]> {
    this.results.push(...list.map((r) => r.delivery_id));
    return list.map(() => true);
  }
  async release(_target: unknown, claims: HeldClaim[], reason: string): Promise<void> {
    this.released.push({ claims, reason });
  }
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
  core = new RecordingCore(),
  shutdownTimeoutMs = 2000,
  logger = pino({ level: 'silent' }),
) {
  return new Supervisor({
    orm,
    secrets: SecretBox.fromText('test'),
    core,
    logger,
    now: () => new Date(),
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
  const core = new RecordingCore();
  const s = supervisor({ 'file-writer': 'well-behaved' }, core);
  const name = await configure('file-writer');
  const running = await s.act('file-writer', name, 'start');
  t.match(running, {
    type: 'file-writer',
    name,
    status: 'running',
    error: null,
    controllable: true,
    actions: ['stop', 'restart'],
  });
  await waitFor(() => core.results.length >= 2, 'the results of the first claim');
  t.same(core.released, [], 'nothing held: nothing given back');
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
    const s = supervisor({ 'file-writer': 'log-levels' }, new RecordingCore(), 2000, logger);
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
  const s = supervisor({ 'file-writer': 'log-on-start' }, new RecordingCore(), 2000, logger);
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
    core: new RecordingCore(),
    logger: pino({ level: 'silent' }),
    now: () => new Date(),
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
  const core = new RecordingCore();
  const s = supervisor({ 'file-writer': 'crash-on-work', 'http-poster': 'well-behaved' }, core);
  const healthy = await configure('http-poster');
  await s.act('http-poster', healthy, 'start');
  const before = core.results.length;
  const crashing = await configure('file-writer');
  await s.act('file-writer', crashing, 'start');
  const failed = await waitFor(() => {
    const v = s.statusOf('file-writer', crashing);
    return v?.status === 'error' && v;
  }, 'the crash');
  t.match(failed.error, /the actor broke while delivering/);
  await waitFor(() => core.released.length > 0, 'released claims');
  t.equal(core.released[0]!.claims.length, 1, 'the claimed delivery is given back');
  t.match(core.released[0]!.reason, /the instance failed/);
  await waitFor(async () => (await alertsFor(crashing)).length === 1, 'the alert');
  s.poke(healthy);
  await waitFor(() => core.results.length > before + 2, 'the healthy instance still working');
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
  const s = supervisor({ 'file-writer': 'hang-on-stop' }, new RecordingCore(), 300);
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
