// Covers the http poster's format setting against a real HTTP server on 127.0.0.1: json posts the interchange's JSON form as application/json (chunked, named <name>.json), edi posts the bytes as stored, and a payload that is not EDI fails without a retry and posts nothing.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import type { ClaimedDelivery } from '../../protocol/core-protocol.js';
import { LocalPayloadStore } from '../../storage/payloads/local-store.js';
import { retryDefaults, unreachableAlertDefaults } from '../shared/fields.js';
import type { HttpPosterSettings } from './config.js';
import { HttpPoster } from './post.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'pier-poster-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const store = new LocalPayloadStore(dir);
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
const server = http.createServer((request, response) => {
  let body = '';
  request.on('data', (c: Buffer) => (body += c.toString('utf8')));
  request.on('end', () => {
    received.push({ headers: request.headers, body });
    response.end('ok');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
t.teardown(() => server.close());
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;

const settings = (format: 'edi' | 'json'): HttpPosterSettings => ({
  url,
  http_basic_username: '',
  content_type: 'application/edi-x12',
  format,
  timeout_seconds: 10,
  max_concurrent_deliveries: 1,
  proxy_url: '',
  proxy_username: '',
  ...retryDefaults,
  ...unreachableAlertDefaults,
});

async function delivery(content: string, fileName: string): Promise<ClaimedDelivery> {
  const id = randomUUID();
  const size = await store.put(
    { messageId: id, stage: 'unpacked' },
    Readable.from([Buffer.from(content, 'latin1')]),
  );
  return {
    delivery_id: 1,
    claim: 1,
    attempt: 1,
    message: { id, from: 'acme', to: 'globex', file_name: fileName, direction: 'outbound' },
    payload: { stage: 'unpacked', size_bytes: size },
  };
}

const x12 =
  'ISA*00*          *00*          *ZZ*ACME           *ZZ*GLOBEX         *261125*0930*U*00401*000000001*0*P*>~GS*PO*ACME*GLOBEX*20261125*0930*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20261125~SE*3*0001~GE*1*1~IEA*1*000000001~';

t.test('json posts the JSON form; edi the bytes', async (t) => {
  const poster = new HttpPoster(settings('json'), {}, store, 'pier-test');
  t.match(await poster.deliver(await delivery(x12, 'po.edi')), { ok: true });
  const [json] = received.splice(0);
  t.equal(json!.headers['content-type'], 'application/json');
  t.equal(json!.headers['transfer-encoding'], 'chunked');
  t.match(json!.headers['content-disposition'], /po\.edi\.json/);
  t.match(JSON.parse(json!.body), {
    standard: 'x12',
    groups: [
      {
        transactions: [
          { segments: [{ tag: 'BEG', positions: ['BEG01', 'BEG02', 'BEG03', 'BEG04', 'BEG05'] }] },
        ],
      },
    ],
  });
  const raw = new HttpPoster(settings('edi'), {}, store, 'pier-test');
  t.match(await raw.deliver(await delivery(x12, 'po.edi')), { ok: true });
  const [bytes] = received.splice(0);
  t.equal(bytes!.headers['content-type'], 'application/edi-x12');
  t.equal(bytes!.body, x12);
});

t.test('a payload that is not EDI fails without a retry and posts nothing', async (t) => {
  const poster = new HttpPoster(settings('json'), {}, store, 'pier-test');
  t.match(await poster.deliver(await delivery('plain text', 'notes.txt')), {
    ok: false,
    retryable: false,
    error: /^format json: the payload cannot be given as JSON/,
  });
  t.same(received, []);
});
