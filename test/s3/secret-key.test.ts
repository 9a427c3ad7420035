// Covers the rule that S3 credentials are never settings and never told: with the secret key set in the environment, no answer (settings, storage tests passing and failing, uploads, downloads, a failed upload), no log line of the server or its actors and no audit row contains it, nor the access key id in an answer.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { sql } from '../helpers/database.js';
import { runningOn, must, parties, sendByHand, upload } from '../helpers/flow.js';
import { startS3, useS3Credentials } from '../helpers/s3.js';
import { startTestServer, type Answer } from '../helpers/server.js';

const secret = `pier-secret-${randomBytes(12).toString('hex')}`;
useS3Credentials(secret);
const logged: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logged.push(chunk.toString());
    done();
  },
});
const s3 = await startS3(t);
const server = await startTestServer(t, { storage: s3.settings, logger: pino({ level: 'debug' }, sink) });
const answers: Answer[] = [];
const call = async (method: string, url: string, body?: unknown) => {
  const a = await server.call(method, url, body === undefined ? {} : { body });
  answers.push(a);
  return a;
};

t.test('nothing pier says or records contains the S3 secret key', async (t) => {
  await parties(server);
  await must(server, '/plugins/configs?type=file-writer', {
    name: 'out',
    directory: `${server.dataDir}/out`,
  });
  await runningOn(server, 'file-writer', 'out');
  t.equal((await call('GET', '/api/v1/settings')).status, 200);
  t.equal((await call('POST', '/api/v1/settings/storage/test')).body.data.ok, true);
  t.equal((await call('PUT', '/api/v1/settings', { storage_s3_bucket: 'no-such-bucket' })).status, 200);
  t.match((await call('POST', '/api/v1/settings/storage/test')).body.data, { ok: false, step: 'connect' });
  t.equal((await call('PUT', '/api/v1/settings', { storage_s3_bucket: s3.bucket })).status, 200);
  const sent = await sendByHand(
    server,
    { from: 'acme', to: 'globex', target: 'out' },
    { name: 'a.bin', content: randomBytes(100_000) },
  );
  t.equal(sent.status, 'Delivered');
  answers.push(await server.call('GET', `/api/v1/messages/${sent.id}`));
  answers.push(await server.call('GET', `/api/v1/messages/${sent.id}/payload`));
  await s3.close();
  const failed = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'out' },
    { name: 'b.bin', content: randomBytes(100_000) },
  );
  answers.push(failed);
  t.equal(failed.status, 503);
  t.equal(failed.body.error.code, 'STORAGE_UNAVAILABLE');
  answers.push(await server.call('GET', '/api/v1/audit'));

  t.ok(logged.length > 0, `${logged.length} log lines were written`);
  t.ok(
    logged.some((l) => l.includes('ECONNREFUSED')),
    'the failed upload was logged with its cause',
  );
  for (const a of answers) {
    t.notOk(a.raw.includes(secret), `${a.status} answer without the secret`);
    t.notOk(a.raw.includes('S3RVER'), `${a.status} answer without the access key id`);
  }
  t.notOk(
    logged.some((l) => l.includes(secret)),
    'no log line has the secret',
  );
  const audit = await sql(server.db.url, 'select * from audit_event');
  t.ok(audit.length >= 2, 'the settings changes were audited');
  t.notOk(JSON.stringify(audit).includes(secret), 'no audit row has the secret');
});
