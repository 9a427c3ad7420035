// Covers the as2-sender with a large document (8 MiB of random bytes, above the 1 MiB threshold from which it packs from a temporary file and streams the body): pier → pier over real HTTP, signed, compressed and encrypted, the document is Delivered with a verified signed receipt and stored byte for byte by the receiver; a partner that cuts the connection while the body streams fails the delivery; a chunked body (body_framing) streams without Content-Length; and no temporary directory of the sender is left behind.
import { randomBytes } from 'node:crypto';
import { watch } from 'node:fs';
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { streamFromBytes } from '../../actors/as2/stream/pack-streamed.js';
import { agreement, startSender, syncSignedCompressed, pierToItself } from '../helpers/as2.js';
import { tempDir, upload, waitForMessage, type Message } from '../helpers/flow.js';
import { startTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

// The sender packs a large document in a temporary directory under os.tmpdir(). This file's
// process gets one of its own, set before the server's threads start (they copy the environment):
// the suite runs files side by side, and another file's sender would otherwise show up in the
// listing below. Directories made there are noted as they appear, so a test can tell that the
// sender used one, not only that none is left.
const senderTmp = await tempDir(t, 'pier-large-send-');
process.env.TMPDIR = senderTmp;
const senderDirsMade = new Set<string>();
const watcher = watch(senderTmp, (_event, name) => {
  if (name?.startsWith('pier-send-')) senderDirsMade.add(name);
});
t.teardown(() => watcher.close());

const server = await startTestServer(t);
const { cert, url } = await pierToItself(t, server);
await startSender(server, 'out');
const profile = syncSignedCompressed;
const document = randomBytes(8 * 1024 * 1024);

/** The sender's temporary directories (one per large message being sent) in this file's temporary directory. */
const senderTempDirs = async () => (await readdir(senderTmp)).filter((name) => name.startsWith('pier-send-'));

async function send(tag: string): Promise<Message> {
  const made = await upload(
    server,
    { from: `s${tag}`, to: `r${tag}`, target: 'out' },
    { name: `${tag}.bin`, content: document },
  );
  if (made.status !== 201) throw new Error(`upload failed: ${made.raw}`);
  return waitForMessage(
    server,
    made.body.data.id,
    (m) => m.status === 'Delivered' || m.status === 'Error',
    `${tag} finished`,
    60_000,
  );
}

t.test(
  '8 MiB signed, compressed and encrypted: Delivered with a verified receipt, stored intact',
  async (t) => {
    t.ok(document.length >= streamFromBytes, 'the document takes the streamed path');
    await agreement(server, 'big', url, cert, profile);
    const before = await senderTempDirs();
    senderDirsMade.clear();
    const sent = await send('big');
    t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
    t.equal(sent.protocols.as2.mdn.disposition, 'automatic-action/MDN-sent-automatically; processed');
    t.equal(sent.protocols.as2.mdn.signed, true, 'the receipt was signed (and verified, or not Delivered)');
    t.ok(
      sent.history.some((h: Message) => h.kind === 'mdn_received'),
      'mdn_received',
    );
    const received: Message = await waitFor(async () => {
      const list = await server.call('GET', '/api/v1/messages?from=spbig');
      return (list.body.data.messages as Message[])[0];
    }, 'the message received');
    t.equal(received.protocols.as2.mic, sent.protocols.as2.mic, 'both sides computed the same MIC');
    const download = await server.app.inject({
      url: `/api/v1/messages/${received.id}/payload?stage=unpacked`,
      headers: { authorization: `Bearer ${server.token}` },
    });
    t.equal(download.statusCode, 200);
    t.ok(download.rawPayload.equals(document), 'the unpacked stage is the document, byte for byte');
    t.ok(senderDirsMade.size >= 1, 'the sender packed it in a temporary directory');
    t.same(await senderTempDirs(), before, 'no temporary directory left behind');
  },
);

t.test(
  'the partner cuts the connection mid-body: the delivery fails, no temporary directory is left',
  async (t) => {
    let receivedBytes = 0;
    let contentLength = '';
    const cutter = http.createServer((request) => {
      contentLength = request.headers['content-length'] ?? '';
      request.on('data', (chunk: Buffer) => {
        receivedBytes += chunk.length;
        if (receivedBytes >= 1024 * 1024) request.socket.destroy();
      });
    });
    await new Promise<void>((resolve) => cutter.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise((resolve) => cutter.close(resolve)));
    const cutterUrl = `http://127.0.0.1:${(cutter.address() as AddressInfo).port}/as2`;
    await agreement(server, 'cut', cutterUrl, cert, profile);
    const before = await senderTempDirs();
    senderDirsMade.clear();
    const sent = await send('cut');
    t.equal(sent.status, 'Error');
    t.match(
      sent.deliveries[0]?.last_error,
      /ECONNRESET|EPIPE|socket hang up|closed/,
      sent.deliveries[0]?.last_error,
    );
    t.ok(receivedBytes >= 1024 * 1024, 'the body was being streamed when the partner cut it');
    t.ok(Number(contentLength) > document.length, 'the request announced the whole body in Content-Length');
    t.ok(senderDirsMade.size >= 1, 'the sender packed it in a temporary directory');
    t.same(await senderTempDirs(), before, 'no temporary directory left behind');
  },
);

t.test('body_framing chunked: the large body is streamed without Content-Length', async (t) => {
  let headers: http.IncomingHttpHeaders = {};
  let receivedBytes = 0;
  const sink = http.createServer((request, response) => {
    headers = request.headers;
    request.on('data', (chunk: Buffer) => (receivedBytes += chunk.length));
    request.on('end', () => response.end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => sink.close(resolve)));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/as2`;
  await agreement(
    server,
    'chunked',
    sinkUrl,
    cert,
    { ...profile, mdn_mode: 'none', mdn_signed: false },
    {
      body_framing: 'chunked',
    },
  );
  const sent = await send('chunked');
  t.equal(sent.status, 'Delivered', sent.deliveries[0]?.last_error);
  t.equal(headers['transfer-encoding'], 'chunked');
  t.equal(headers['content-length'], undefined);
  t.ok(receivedBytes > document.length, 'the whole encrypted body arrived');
});
