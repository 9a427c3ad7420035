// Covers redispatch and redeliver (docs/api/lifecycles.md#delivery-state) row by row: which states move, 409s with details, history naming the user, "changes nothing → 200, no history", new deliveries for routes matched now.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { type Message, must, parkedWriter, parties, tempDir, upload } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';

// The targets are never started (created disabled): deliveries stay where the test puts them.
const server = await startTestServer(t, { runtime: { timers: false } });
const dir = await tempDir(t);
await parties(server);
await parkedWriter(server, 'parked', path.join(dir, 'a'));
await parkedWriter(server, 'other', path.join(dir, 'b'));
await must(server, '/plugins/configs?type=file-poller', {
  name: 'in',
  base_directory: path.join(dir, 'in'),
  processed_directory: path.join(dir, 'done'),
  from: 'acme',
  enabled: false,
});

async function newMessage(): Promise<Message> {
  const made = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'parked' },
    { name: 'm.txt', content: 'x' },
  );
  if (made.status !== 201) throw new Error(made.raw);
  return made.body.data;
}

/** Puts a delivery in a state, as the flow would have left it, and settles its message the same way. */
async function putInState(m: Message, state: string): Promise<number> {
  const id = m.deliveries[0].id as number;
  const finished = ['delivered', 'failed', 'stalled'].includes(state);
  await sql(
    server.db.url,
    `update delivery set state = $2::text, attempts = 3, last_error = 'boom',
            finished_at = case when $3::boolean then now() else null end,
            next_attempt_at = case when $2::text = 'retrying' then now() + interval '1 hour' else null end where id = $1`,
    [id, state, finished],
  );
  await sql(server.db.url, `update message set stage = $2 where id = $1`, [
    m.id,
    finished ? 'settled' : 'dispatched',
  ]);
  return id;
}

const get = async (id: string) => (await server.call('GET', `/api/v1/messages/${id}`)).body.data;
const redeliver = (m: Message, deliveryId: number) =>
  server.call('POST', `/api/v1/messages/${m.id}/deliveries/${deliveryId}/redeliver`, { body: {} });
const redispatch = (id: string) => server.call('POST', `/api/v1/messages/${id}/redispatch`, { body: {} });

for (const state of ['failed', 'stalled', 'retrying', 'delivered']) {
  t.test(`redeliver from ${state}: queued, attempts 0, error cleared, history names the user`, async (t) => {
    const m = await newMessage();
    const deliveryId = await putInState(m, state);
    const answer = await redeliver(m, deliveryId);
    t.equal(answer.status, 200);
    t.match(answer.body.data.deliveries[0], {
      id: deliveryId,
      state: 'queued',
      attempts: 0,
      last_error: '',
      next_attempt_at: null,
      finished_at: null,
    });
    t.equal(answer.body.data.stage, 'dispatched');
    t.equal(answer.body.data.status, 'InProgress');
    const lines = answer.body.data.history.slice(-2);
    t.match(lines[0], {
      kind: 'redeliver_requested',
      delivery_id: deliveryId,
      target: 'parked',
      text: 'Redeliver requested by sa:tester',
    });
    t.match(lines[1], { kind: 'delivery_changed', old_state: state, new_state: 'queued' });
    t.same(answer.body.data, await get(m.id), 'the answer is the message as GET shows it');
  });
}

for (const state of ['queued', 'delivering', 'awaiting_ack']) {
  t.test(`redeliver from ${state}: 409 NOT_REDELIVERABLE, nothing changes`, async (t) => {
    const m = await newMessage();
    const deliveryId = state === 'queued' ? m.deliveries[0].id : await putInState(m, state);
    const before = await get(m.id);
    const answer = await redeliver(m, deliveryId);
    t.equal(answer.status, 409);
    t.same(answer.body.error, {
      code: 'NOT_REDELIVERABLE',
      message: `A delivery that is ${state} cannot be delivered again`,
      details: { state, allowed: ['retrying', 'delivered', 'failed', 'stalled'] },
    });
    t.same(await get(m.id), before);
  });
}

t.test("redeliver of an unknown message, or of another message's delivery: 404", async (t) => {
  const a = await newMessage();
  const b = await newMessage();
  const unknown = await server.call('POST', `/api/v1/messages/${randomUUID()}/deliveries/1/redeliver`, {
    body: {},
  });
  t.same(unknown.body.error, { code: 'NOT_FOUND', message: 'Message not found' });
  const foreign = await redeliver(a, b.deliveries[0].id);
  t.equal(foreign.status, 404);
  t.same(foreign.body.error, { code: 'NOT_FOUND', message: 'Delivery not found' });
});

t.test('redispatch of a message its source still owns: 409 NOT_REDISPATCHABLE', async (t) => {
  const id = randomUUID();
  await sql(
    server.db.url,
    `insert into message (id, status, stage, direction, from_party, to_party, file_name, source_type, source_name, accepted_by, created_at, updated_at)
     values ($1, 'Received', 'accepted', 'outbound', 'acme', 'globex', 'x', 'file-poller', 'in', 1, now(), now())`,
    [id],
  );
  const answer = await redispatch(id);
  t.equal(answer.status, 409);
  t.same(answer.body.error, {
    code: 'NOT_REDISPATCHABLE',
    message: 'A message in stage accepted cannot be dispatched again; its source still owns it',
    details: { stage: 'accepted', allowed: ['dispatched', 'settled'] },
  });
  t.equal((await redispatch(randomUUID())).status, 404);
});

t.test('redispatch queues a queued delivery again, with a history line', async (t) => {
  const m = await newMessage();
  await sql(server.db.url, 'update delivery set dispatches = 4 where id = $1', [m.deliveries[0].id]);
  const answer = await redispatch(m.id);
  t.equal(answer.status, 200);
  t.equal(answer.body.data.deliveries[0].state, 'queued');
  const [row] = await sql(server.db.url, 'select dispatches from delivery where id = $1', [
    m.deliveries[0].id,
  ]);
  t.equal(row!.dispatches, 1, 'announced afresh: the stall schedule starts again');
  t.match(answer.body.data.history.at(-1), {
    kind: 'redispatch_requested',
    text: 'Redispatch requested by sa:tester',
    target: 'parked',
  });
});

t.test('redispatch queues a stalled delivery again', async (t) => {
  const m = await newMessage();
  await putInState(m, 'stalled');
  await sql(server.db.url, "update message set status = 'Stalled' where id = $1", [m.id]);
  const answer = await redispatch(m.id);
  t.match(answer.body.data, { status: 'InProgress', stage: 'dispatched', deliveries: [{ state: 'queued' }] });
  const kinds = answer.body.data.history.slice(-3).map((h: { kind: string }) => h.kind);
  t.same(kinds, ['redispatch_requested', 'delivery_changed', 'status_changed']);
});

for (const state of ['delivered', 'failed', 'retrying', 'delivering', 'awaiting_ack']) {
  t.test(`redispatch leaves a ${state} delivery alone: 200, unchanged, no history line`, async (t) => {
    const m = await newMessage();
    await putInState(m, state);
    const before = await get(m.id);
    const answer = await redispatch(m.id);
    t.equal(answer.status, 200);
    t.same(answer.body.data, before);
  });
}

t.test('redispatch makes a delivery for a target the routes match now', async (t) => {
  const id = randomUUID();
  await server.ctx.runtime!.dispatcher.acceptAndDispatch({
    source_type: 'file-poller',
    source_name: 'in',
    message: {
      id,
      from: 'acme',
      to: 'globex',
      file_name: 'r.txt',
      payload: { stage: 'unpacked', size_bytes: 1 },
    },
  });
  const before = await get(id);
  t.match(before, { status: 'NotRouted', stage: 'settled', deliveries: [] });
  const nothing = await redispatch(id);
  t.same(nothing.body.data, before, 'no route yet: nothing changes');
  await must(server, '/routes', { source_plugin: 'in', from: 'acme', to: '*', target_plugin: 'other' });
  const answer = await redispatch(id);
  t.match(answer.body.data, {
    status: 'InProgress',
    stage: 'dispatched',
    deliveries: [{ target: 'other', state: 'queued' }],
  });
  t.match(answer.body.data.history.slice(-3), [
    {
      kind: 'delivery_changed',
      new_state: 'queued',
      target: 'other',
      text: 'Redispatch requested by sa:tester',
    },
    { kind: 'redispatch_requested', target: 'other' },
    { kind: 'status_changed', old_status: 'NotRouted', new_status: 'InProgress' },
  ]);
});
