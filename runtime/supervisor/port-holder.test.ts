// Covers the supervisor's check before a receiver starts: a running receiver of this process on the same port (the same host, or either on every address) holds it, one on another port or another host does not, nor a stopped one, nor a type that listens on nothing.
import t from 'tap';
import { ManagedInstance } from './instance.js';
import { portHolder } from './port-holder.js';

function running(type: string, name: string, settings: Record<string, unknown>): ManagedInstance {
  const instance = new ManagedInstance(type as ManagedInstance['type'], name, () => new Date());
  instance.status = 'running';
  instance.config = { settings, secrets: {} } as unknown as ManagedInstance['config'];
  return instance;
}

const inbound = running('as2-receiver', 'inbound', { host: '0.0.0.0', port: 10080 });
const local = running('as2-receiver', 'local', { host: '127.0.0.1', port: 10081 });
const poller = running('sftp-poller', 'remote', { host: 'sftp.example', port: 10082 });
const all = [inbound, local, poller];

t.test('a running receiver on the port holds it', async (t) => {
  const at = (host: string, port: number) =>
    portHolder(all, { type: 'as2-receiver', name: 'second' }, { host, port })?.name;
  t.equal(at('0.0.0.0', 10080), 'inbound', 'same host and port');
  t.equal(at('127.0.0.1', 10080), 'inbound', 'a host under the other one listening on every address');
  t.equal(at('0.0.0.0', 10081), 'local', 'every address over a host');
  t.equal(at('10.0.0.5', 10081), undefined, 'another host');
  t.equal(at('0.0.0.0', 10083), undefined, 'another port');
  t.equal(at('0.0.0.0', 10082), undefined, "an SFTP poller's port is a remote server's");
});

t.test('the instance itself, a stopped one, and other types hold nothing', async (t) => {
  t.equal(
    portHolder(all, { type: 'as2-receiver', name: 'inbound' }, { host: '0.0.0.0', port: 10080 }),
    undefined,
  );
  const stopped = running('as2-receiver', 'old', { host: '0.0.0.0', port: 10090 });
  stopped.status = 'stopped';
  t.equal(
    portHolder([stopped], { type: 'as2-receiver', name: 'new' }, { host: '0.0.0.0', port: 10090 }),
    undefined,
  );
  t.equal(portHolder(all, { type: 'file-writer', name: 'out' }, { port: 10080 }), undefined);
});
