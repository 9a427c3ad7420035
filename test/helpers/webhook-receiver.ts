/** An HTTP receiver on 127.0.0.1 for notification tests: answers as told (a status, or never), keeps what it got. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';

export type Behaviour = number | 'hang';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** When the request ended, on performance.now()'s clock. */
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next requests get, in order; after the list, `otherwise`. */
  answers: Behaviour[];
  otherwise: Behaviour;
}

export async function startReceiver(t: Test): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = { url: '', received: [], answers: [], otherwise: 200 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      receiver.received.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      });
      const behaviour = receiver.answers.shift() ?? receiver.otherwise;
      if (behaviour === 'hang') hanging.push(response);
      else response.writeHead(behaviour).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        hanging.forEach((r) => r.destroy());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return receiver;
}
