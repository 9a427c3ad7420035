// Covers the sftp-sender's format json against a real OpenSSH server: an interchange sent by hand lands on the server as its JSON form under <name>.json, and a payload that is not EDI fails its delivery without retries and leaves nothing on the server.
import { readFile, readdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { jsonTextToEdi } from '../../edi/json/translate.js';
import { must, parties, upload, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { sftpLogin, startSshd } from '../helpers/sshd.js';

const server = await startTestServer(t);
const sshd = await startSshd(t);
await parties(server);
const outbox = await sshd.directory('outbox');
await must(server, '/plugins/configs?type=sftp-sender', {
  name: 'to-globex',
  ...sftpLogin(sshd),
  remote_directory: outbox,
  path_pattern: '{filename}',
  format: 'json',
  retry_interval: 1,
});

t.test('an interchange lands as its JSON form; anything else fails without a retry', async (t) => {
  const bytes = readFileSync(
    path.join(import.meta.dirname, '../fixtures/edi-json/edifact-desadv-syntax4-crlf-repetition.edi'),
  );
  const sent = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'to-globex' },
    { name: 'desadv.edi', content: bytes },
  );
  t.equal(sent.status, 201);
  await waitForMessage(server, sent.body.data.id, (m) => m.status === 'Delivered', 'delivered', 30_000);
  const json = await readFile(path.join(outbox, 'desadv.edi.json'), 'utf8');
  t.match(JSON.parse(json), { standard: 'edifact', una: "UNA:+.?*'" });
  t.ok(jsonTextToEdi(json).equals(bytes), 'the JSON writes back to the bytes sent');
  const text = await upload(
    server,
    { from: 'acme', to: 'globex', target: 'to-globex' },
    { name: 'notes.txt', content: 'hello' },
  );
  const failed = await waitForMessage(
    server,
    text.body.data.id,
    (m) => m.status === 'Error',
    'failed',
    30_000,
  );
  t.match(failed.deliveries[0], {
    state: 'failed',
    attempts: 1,
    last_error:
      /^format json: the payload cannot be given as JSON: the document is not an X12 or EDIFACT interchange/,
  });
  t.same((await readdir(outbox)).sort(), ['desadv.edi.json'], 'nothing else on the server');
});
