/** Building blocks of message-flow tests: temporary directories, parties, instances, forms, waiting for messages. */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import type { Answer, TestServer } from './server.js';
import { waitFor } from './wait.js';

export async function tempDir(t: Test, prefix = 'pier-flow-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  // Retried: an actor may still be finishing a file while the test ends.
  t.teardown(() => rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }));
  return dir;
}

/** POST under /api/v1 that must succeed. */
export async function must(server: TestServer, url: string, body: unknown = {}): Promise<Answer> {
  const answer = await server.call('POST', `/api/v1${url}`, { body });
  if (answer.status >= 300) throw new Error(`POST ${url} answered ${answer.status}: ${answer.raw}`);
  return answer;
}

/**
 * Waits until the instance runs in this process, starting it when it is stopped. A
 * configuration created enabled starts by itself (and another process follows its desired
 * state within moments), so an explicit start may find it running already.
 */
export async function runningOn(server: TestServer, type: string, name: string): Promise<void> {
  await waitFor(
    async () => {
      const services = await server.call('GET', '/api/v1/services');
      const found = (services.body.data as { type: string; name: string; status: string }[]).find(
        (s) => s.type === type && s.name === name,
      );
      if (found?.status === 'running') return true;
      if (found?.status === 'stopped' || found?.status === 'error') {
        await server.call('POST', `/api/v1/services/${type}/${name}/start`, { body: {} });
      }
      return false;
    },
    `${type}/${name} running`,
    30_000,
  );
}

/** Organization acme and partner globex. */
export async function parties(server: TestServer): Promise<void> {
  await must(server, '/organizations', { name: 'acme' });
  await must(server, '/partners', { name: 'globex' });
}

export interface FileFlowOptions {
  /** The file-poller's name, and the folder under the test's directory it reads: `in`. */
  source?: string;
  /** The folder under the test's directory the poller moves taken files to: `done`. */
  processed?: string;
  /** The partner the route sends to: globex. */
  to?: string;
  /** Settings of the poller to add or replace (it polls every 5 s, its default, unless given). */
  poller?: Record<string, unknown>;
  /** Settings of the file-writer `out` (into `<dir>/out`) to add or replace; false: no writer. */
  writer?: Record<string, unknown> | false;
  /** An instance the test made that the route delivers to, in place of the file-writer `out`. */
  target?: string;
  /** Fields of the route from the poller to `out` to add or replace; false: the test makes its own routes. */
  route?: Record<string, unknown> | false;
}

/**
 * The requests that build the file flow most tests run on: file-writer `out` into `<dir>/out`,
 * file-poller `in` reading `<dir>/in` (files for a partner under `in/<partner>/`, from acme) and
 * a route from the poller, acme to globex, to `out`. The parties are the caller's. As data, so
 * that a test server (`fileFlow`) and a `pier serve` process (`fileFlowOn`) make the same flow.
 */
export function fileFlowRequests(
  dir: string,
  options: FileFlowOptions = {},
): { url: string; body: Record<string, unknown> }[] {
  const source = options.source ?? 'in';
  const writer =
    options.writer === false || options.target
      ? undefined
      : { name: 'out', directory: path.join(dir, 'out'), ...options.writer };
  const requests = [];
  if (writer) requests.push({ url: '/plugins/configs?type=file-writer', body: writer });
  requests.push({
    url: '/plugins/configs?type=file-poller',
    body: {
      name: source,
      base_directory: path.join(dir, source),
      processed_directory: path.join(dir, options.processed ?? 'done'),
      from: 'acme',
      ...options.poller,
    },
  });
  if (options.route !== false) {
    requests.push({
      url: '/routes',
      body: {
        source_plugin: source,
        from: 'acme',
        to: options.to ?? 'globex',
        target_plugin: options.target ?? writer?.name ?? 'out',
        ...options.route,
      },
    });
  }
  return requests;
}

/** Makes the file flow of `fileFlowRequests` on a test server. */
export async function fileFlow(
  server: TestServer,
  dir: string,
  options: FileFlowOptions = {},
): Promise<void> {
  for (const { url, body } of fileFlowRequests(dir, options)) await must(server, url, body);
}

/**
 * The parties and the flow many tests run: file-poller `in` reading `<dir>/in` every second
 * (files for globex in `in/globex`, from acme), routed by route `to-globex` to file-writer `out`
 * writing `<dir>/out`.
 */
export async function pollerToWriter(
  server: TestServer,
  dir: string,
): Promise<{ inbox: string; outbox: string }> {
  const inbox = path.join(dir, 'in');
  const outbox = path.join(dir, 'out');
  await parties(server);
  await mkdir(path.join(inbox, 'globex'), { recursive: true });
  await fileFlow(server, dir, { poller: { polling_interval: 1 }, route: { name: 'to-globex' } });
  return { inbox, outbox };
}

/**
 * A file-writer created disabled, so it stays stopped until a test starts it: deliveries to it
 * wait where the test puts them.
 */
export function parkedWriter(server: TestServer, name: string, directory: string): Promise<Answer> {
  return must(server, '/plugins/configs?type=file-writer', { name, directory, enabled: false });
}

/**
 * The parties of the EDI-as-JSON tests, acme (interchange id ZZ ACME) and globex (01 999999999),
 * and the file-writer `out` writing each file by its name into `directory`; answers globex's id.
 */
export async function ediParties(server: TestServer, directory: string): Promise<number> {
  await must(server, '/organizations', { name: 'acme', interchange_ids: [{ qualifier: 'ZZ', id: 'ACME' }] });
  const globex = await must(server, '/partners', {
    name: 'globex',
    interchange_ids: [{ qualifier: '01', id: '999999999' }],
  });
  await must(server, '/plugins/configs?type=file-writer', {
    name: 'out',
    directory,
    path_pattern: '{filename}',
  });
  return globex.body.data.id as number;
}

/** A multipart/form-data body with text fields and one file. */
export function form(
  fields: Record<string, string>,
  file?: { name: string; content: string | Buffer; field?: string },
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `pier${randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.name}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'x-requested-with': 'test' },
  };
}

/** POST /messages with a form. */
export function upload(
  server: TestServer,
  fields: Record<string, string>,
  file?: { name: string; content: string | Buffer },
  headers: Record<string, string> = {},
): Promise<Answer> {
  const body = form(fields, file);
  return server.call('POST', '/api/v1/messages', {
    payload: body.payload,
    headers: { ...body.headers, ...headers },
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- messages are asserted field by field
export type Message = any;

/** Waits until GET /messages/{id} satisfies `done`. */
export async function waitForMessage(
  server: TestServer,
  id: string,
  done: (m: Message) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<Message> {
  return waitFor(
    async () => {
      const m = (await server.call('GET', `/api/v1/messages/${id}`)).body?.data;
      return m && done(m) ? m : undefined;
    },
    what,
    timeoutMs,
  );
}

/** Delivered or Error: the sender is done with the message. */
export const finished = (m: Message) => m.status === 'Delivered' || m.status === 'Error';

/** Uploads a file (POST /messages must answer 201) and waits until the message satisfies `done`. */
export async function sendByHand(
  server: TestServer,
  fields: Record<string, string>,
  file: { name: string; content: string | Buffer },
  done: (m: Message) => boolean = finished,
  what = `${file.name} finished`,
  timeoutMs = 15_000,
): Promise<Message> {
  const made = await upload(server, fields, file);
  if (made.status !== 201) throw new Error(`upload of ${file.name} failed: ${made.raw}`);
  return waitForMessage(server, made.body.data.id, done, what, timeoutMs);
}

/** Waits for the first message of a list query that satisfies `done`. */
export async function waitForMessages(
  server: TestServer,
  query: string,
  done: (list: Message[]) => boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<Message[]> {
  return waitFor(
    async () => {
      const list = (await server.call('GET', `/api/v1/messages?${query}`)).body?.data?.messages as Message[];
      return list && done(list) ? list : undefined;
    },
    what,
    timeoutMs,
  );
}
