// Covers the hand-off of a received document to a running file-writer of the same process (protocol/handoff-protocol.ts):
// a message from `openssl cms` to a running as2-receiver is written before its receipt, its delivery stored held by the
// writer in the acceptance ("Writing …") and recorded delivered ("Written to …") only once the file has its name, never
// queued; a handed file that cannot be named after the acceptance (its directory is a file) goes back to the queue with
// the reason, nothing is written, and a redeliver once the way is clear writes it once; a writer started again after a
// crash finds the handed files left: a delivery a dead process held is queued again and written once from the payload
// store, a file whose acceptance never committed is removed, a live process's file is left to it; two documents for one
// name at once keep the writer's if_exists (fail): one written whole, the other refused; a handed message's signed
// receipt (made while the writer takes the document) verifies with openssl, carries the MIC, names the receipt the
// message stores, and is what a repeat of the message gets, byte for byte.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import t from 'tap';
import { aliceEncryptsToBob, messageByAs2Id, postAs2 } from '../helpers/as2.js';
import { finished, must, tempDir, waitForMessage, type Message } from '../helpers/flow.js';
import { waitFor } from '../helpers/wait.js';
import { startTestServer } from '../helpers/server.js';
import { asHttp, asMessage, opensslDigest, opensslVerifies, writeFixture } from '../helpers/smime.js';
import { makeParties } from './parties.js';

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures } = parties;
const dir = await tempDir(t);
const inbox = path.join(dir, 'inbox');
const url = await aliceEncryptsToBob(server, fixtures);
await must(server, '/plugins/configs?type=file-writer', {
  name: 'inbox',
  directory: inbox,
  path_pattern: '{from}/{filename}',
  if_exists: 'fail',
  max_attempts: 2,
  retry_interval: 1,
});
await must(server, '/routes', { source_plugin: 'as2in', from: 'alice', to: 'bob', target_plugin: 'inbox' });

let sent = 0;
/** Sends one document; answers its stored message, its file's path and the receipt's status. */
async function send(
  text: string,
  name?: string,
): Promise<{ message: Message; file: string; status: number }> {
  const id = `<handoff-${++sent}-${randomUUID()}@alice.example>`;
  const disposition = name ? `Content-Disposition: attachment; filename="${name}"\r\n` : '';
  writeFixture(fixtures, 'entity.mime', `Content-Type: application/edi-x12\r\n${disposition}\r\n${text}`);
  fixtures.openssl('cms -encrypt -binary -in entity.mime -aes256 -out encrypted.eml -recip bob.crt');
  const request = asHttp(fixtures.read('encrypted.eml'), { binary: true });
  const answer = await postAs2(url, request.body, {
    'AS2-From': 'ALICE',
    'AS2-To': 'BOB',
    'Message-ID': id,
    ...request.headers,
  });
  const message = await messageByAs2Id(server, id);
  return { message, file: path.join(inbox, 'alice', message.file_name), status: answer.status };
}

const history = async (m: Message) =>
  (await server.call('GET', `/api/v1/messages/${m.id}`)).body.data.history;
const deliveryLines = async (m: Message) =>
  ((await history(m)) as { kind: string; text: string; old_state: string; new_state: string }[]).filter(
    (l) => l.kind === 'delivery_changed',
  );

// The receiver plans a hand-off from the parties and routes its first acceptance read.
const first = await send('ISA*first~\r\n');
await waitForMessage(server, first.message.id, finished, 'the first message delivered');

t.test('a handed document is written before its receipt, recorded delivered once named', async (t) => {
  const { message, file, status } = await send('ISA*handed~\r\n');
  t.equal(status, 200);
  t.equal(await readFile(file, 'latin1'), 'ISA*handed~\r\n', 'the file is there when the receipt is');
  const m = await waitForMessage(server, message.id, (x) => x.status === 'Delivered', 'recorded delivered');
  t.match(m.deliveries, [{ target: 'inbox', state: 'delivered', attempts: 1, last_error: '' }]);
  t.match(await deliveryLines(message), [
    { old_state: null, new_state: 'delivering', text: `Writing alice/${message.file_name}` },
    { old_state: 'delivering', new_state: 'delivered', text: `Written to alice/${message.file_name}` },
  ]);
  t.same(await readdir(path.join(inbox, '.pier-tmp')), [], 'no temporary file is left');
});

t.test(
  "a handed message's receipt, signed while the writer takes it, is the one stored and sent again",
  async (t) => {
    // Opened on the receiver's thread (it is alone), its receipt is signed while the writer answers
    // the hand-off: the receipt must still verify, carry the document's MIC, and be what the
    // acceptance stored, since a partner sending the message again gets that one.
    const id = `<handoff-receipt-${randomUUID()}@alice.example>`;
    writeFixture(fixtures, 'entity.mime', 'Content-Type: application/edi-x12\r\n\r\nISA*receipt~\r\n');
    const mic = `${opensslDigest(fixtures, 'sha256', 'entity.mime')}, sha-256`;
    fixtures.openssl('cms -encrypt -binary -in entity.mime -aes256 -out encrypted.eml -recip bob.crt');
    const request = asHttp(fixtures.read('encrypted.eml'), { binary: true });
    const headers = { 'AS2-From': 'ALICE', 'AS2-To': 'BOB', 'Message-ID': id, ...request.headers };
    const answer = await postAs2(url, request.body, headers);
    t.equal(answer.status, 200);
    const contentType = answer.headers['content-type']!;
    const report = opensslVerifies(
      fixtures,
      asMessage({ 'Content-Type': contentType }, answer.body),
      contentType,
      'bob.crt',
    ).toString('latin1');
    t.match(report, 'Disposition: automatic-action/MDN-sent-automatically; processed');
    t.match(report, `Received-Content-MIC: ${mic}`);
    const message = await messageByAs2Id(server, id);
    t.equal(await readFile(path.join(inbox, 'alice', message.file_name), 'latin1'), 'ISA*receipt~\r\n');
    t.match(message.protocols.as2, { mdn: { signed: true, message_id: answer.headers['message-id'] } });

    const again = await postAs2(url, request.body, headers);
    t.equal(again.status, 200);
    t.equal(
      again.headers['message-id'],
      answer.headers['message-id'],
      'the stored receipt answers the repeat',
    );
    t.same(again.body, answer.body, 'byte for byte');
  },
);

t.test(
  'a handed file that cannot be named after its acceptance is queued again, then redelivered once',
  async (t) => {
    // The partner's directory becomes a file: the document is taken (the name is free), but its
    // directory cannot be made when the acceptance has committed.
    await rm(path.join(inbox, 'alice'), { recursive: true });
    await writeFile(path.join(inbox, 'alice'), 'in the way');
    const { message, file, status } = await send('ISA*blocked~\r\n');
    t.equal(status, 200, 'the receipt goes: the document is kept in the payload store');
    const failed = await waitForMessage(
      server,
      message.id,
      (m) => m.status === 'Error',
      'the retries used up',
      20_000,
    );
    t.match(failed.deliveries, [{ state: 'failed' }]);
    const lines = await deliveryLines(message);
    t.match(lines[0], { new_state: 'delivering', text: `Writing alice/${message.file_name}` });
    t.notOk(
      lines.some((l) => l.text.startsWith('Written')),
      'no line says the file was written while it has no name',
    );
    t.match(lines[1], {
      old_state: 'delivering',
      new_state: 'queued',
      text: /^Queued again: the file handed to the writer could not be named: /,
    });
    t.notOk(existsSync(file), 'nothing is written');

    await rm(path.join(inbox, 'alice'));
    const again = await server.call(
      'POST',
      `/api/v1/messages/${message.id}/deliveries/${failed.deliveries[0].id}/redeliver`,
      { body: {} },
    );
    t.equal(again.status, 200);
    const done = await waitForMessage(server, message.id, (m) => m.status === 'Delivered', 'redelivered');
    t.match(done.deliveries, [{ state: 'delivered' }]);
    t.equal(await readFile(file, 'latin1'), 'ISA*blocked~\r\n');
    t.same(await readdir(path.join(inbox, 'alice')), [message.file_name], 'one file');
  },
);

t.test(
  'a writer started again resolves the handed files a crash left, whichever process wrote them',
  async (t) => {
    const { message, file } = await send('ISA*left~\r\n');
    await waitForMessage(server, message.id, (m) => m.status === 'Delivered', 'delivered');
    const db = new pg.Client({ connectionString: server.db.url });
    await db.connect();
    t.teardown(() => db.end());
    // Node numbers of other processes: one that died, one alive (it holds its presence lock on this
    // test's connection, as a pier process does on its own).
    const dead = 7_001;
    const live = 7_002;
    await db.query('select pg_advisory_lock(731301, $1)', [live]);

    // As a kill -9 of the process that accepted it leaves a message between its acceptance and the
    // naming: its delivery held by the dead process, the file not named, the handed temporary there;
    // beside it one of a message whose acceptance never committed, and one a live process holds.
    const stopped = await server.call('POST', '/api/v1/services/file-writer/inbox/stop', { body: {} });
    t.equal(stopped.status, 200);
    await db.query(
      `update delivery set state = 'delivering', claimed_by = $2, claims = 1, attempts = 1, finished_at = null
      where message_id = $1`,
      [message.id, dead],
    );
    await db.query(`update message set status = 'InProgress', stage = 'dispatched' where id = $1`, [
      message.id,
    ]);
    await rm(file);
    const temporaries = path.join(inbox, '.pier-tmp');
    await mkdir(temporaries, { recursive: true });
    const left = path.join(temporaries, `h-${dead}-${message.id}.tmp`);
    const uncommitted = path.join(temporaries, `h-${dead}-${randomUUID()}.tmp`);
    const held = `h-${live}-${randomUUID()}.tmp`;
    await writeFile(left, 'ISA*le');
    await writeFile(uncommitted, 'never accepted');
    await writeFile(path.join(temporaries, held), 'in hand elsewhere');
    // Older than the wait that covers a failover's free presence locks.
    const old = new Date(Date.now() - 120_000);
    for (const f of [left, uncommitted, path.join(temporaries, held)]) await utimes(f, old, old);
    const started = await server.call('POST', '/api/v1/services/file-writer/inbox/start', { body: {} });
    t.equal(started.status, 200);

    const done = await waitForMessage(
      server,
      message.id,
      (m) => m.status === 'Delivered' && m.deliveries[0].attempts === 2,
      'written again',
    );
    t.match(done.deliveries, [{ state: 'delivered' }]);
    t.equal(await readFile(file, 'latin1'), 'ISA*left~\r\n', 'written whole, from the payload store');
    t.match((await deliveryLines(message)).at(-3), {
      old_state: 'delivering',
      new_state: 'queued',
      text: /^(Queued again: the file writer stopped before it named the file handed to it|Taken back: the pier process that held it ended)$/,
    });
    await waitFor(async () => (await readdir(temporaries)).length === 1, "the dead process's files removed");
    t.same(await readdir(temporaries), [held], "the live process's file is left to it");
    t.same(
      (await readdir(path.join(inbox, 'alice'))).filter((f) => f === message.file_name),
      [message.file_name],
    );
    await rm(path.join(temporaries, held));
  },
);

t.test('a name another document in hand will take is left to the queue, which keeps if_exists', async (t) => {
  const [a, b] = await Promise.all([send('ISA*one~\r\n', 'same.edi'), send('ISA*two~\r\n', 'same.edi')]);
  const settled = await Promise.all(
    [a, b].map((s) =>
      waitForMessage(
        server,
        s.message.id,
        (m) => m.status !== 'InProgress' && m.status !== 'Retrying',
        'settled',
        20_000,
      ),
    ),
  );
  t.same(
    settled.map((m) => m.status).sort(),
    ['Delivered', 'Error'],
    'one written, the other refused by if_exists fail',
  );
  const refused = settled.find((m) => m.status === 'Error');
  t.match(refused.deliveries, [{ state: 'failed', last_error: 'alice/same.edi exists with other content' }]);
  const kept = await readFile(path.join(inbox, 'alice', 'same.edi'), 'latin1');
  t.ok(['ISA*one~\r\n', 'ISA*two~\r\n'].includes(kept), 'the file holds one document whole');
});
