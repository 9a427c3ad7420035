// Covers documents received without a file name: two AS2 messages encrypted by `openssl cms` (whose enveloped body
// is named smime.p7m) around entities with no Content-Disposition, posted to a running as2-receiver routed to a
// file-writer with if_exists fail, are both written, each under a name of its own made of the sender's AS2 name, its
// Message-ID and an extension from the content type; the wrapper's name is never taken for the document's.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { defaultFileName, documentName } from '../../actors/as2-receiver/default-file-name.js';
import { aliceEncryptsToBob, messageByAs2Id, postAs2 } from '../helpers/as2.js';
import { must, tempDir, waitForMessage } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { asHttp, writeFixture } from '../helpers/smime.js';
import { makeParties } from './parties.js';

t.test('the default name and the names that are no document’s', async (t) => {
  t.equal(documentName('smime.p7m'), null);
  t.equal(documentName(' SMIME.P7S '), null);
  t.equal(documentName('order.edi'), 'order.edi');
  t.equal(documentName(null), null);
  t.equal(
    defaultFileName('ALICE', '<42@alice.example>', 'application/edi-x12'),
    'ALICE-42@alice.example.x12',
  );
  t.equal(defaultFileName('A/..\\B', '<../x y>', 'text/xml; charset=utf-8'), 'A_.._B-x_y.xml');
  t.equal(defaultFileName('', '', 'application/octet-stream'), 'unknown-message.dat');
});

const server = await startTestServer(t);
const parties = makeParties();
t.teardown(() => parties.remove());
const { fixtures } = parties;
const dir = await tempDir(t);
const url = await aliceEncryptsToBob(server, fixtures);
await must(server, '/plugins/configs?type=file-writer', {
  name: 'inbox',
  directory: path.join(dir, 'inbox'),
  path_pattern: '{filename}',
  if_exists: 'fail',
});
await must(server, '/routes', { source_plugin: 'as2in', from: 'alice', to: 'bob', target_plugin: 'inbox' });

t.test('two unnamed documents are both written, each under a name of its own', async (t) => {
  const names: string[] = [];
  for (const n of [1, 2]) {
    const id = `<unnamed-${n}@alice.example>`;
    writeFixture(
      fixtures,
      'entity.mime',
      `Content-Type: application/edi-x12\r\nContent-Transfer-Encoding: binary\r\n\r\nISA*document ${n}~\r\n`,
    );
    fixtures.openssl('cms -encrypt -binary -in entity.mime -aes256 -out encrypted.eml -recip bob.crt');
    const request = asHttp(fixtures.read('encrypted.eml'), { binary: true });
    t.match(request.headers['Content-Type'], /smime\.p7m/, 'the wrapper is named smime.p7m');
    const answer = await postAs2(url, request.body, {
      'AS2-From': 'ALICE',
      'AS2-To': 'BOB',
      'Message-ID': id,
      ...request.headers,
    });
    t.equal(answer.status, 200);
    const stored = await messageByAs2Id(server, id);
    const done = await waitForMessage(server, stored.id, (m) => m.status !== 'InProgress', 'settled');
    t.equal(done.status, 'Delivered', `message ${n} delivered`);
    t.equal(done.file_name, `ALICE-unnamed-${n}@alice.example.x12`);
    names.push(done.file_name);
  }
  const written = (await readdir(path.join(dir, 'inbox'))).filter((f) => !f.startsWith('.')).sort();
  t.same(written, names.sort(), 'both documents are on disk under their own names');
  t.equal(
    await readFile(path.join(dir, 'inbox', names[1]!), 'latin1'),
    'ISA*document 2~\r\n',
    'the second is not refused as the first one’s name',
  );
});
