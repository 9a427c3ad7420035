import t from 'tap';
import { databaseHosts } from './database-hosts.js';
import { withoutPassword } from './connect.js';

t.test('a URL with one host is given back as it is', async (t) => {
  const url = 'postgresql://pier:secret@db.example:6432/pier?sslmode=require';
  t.same(databaseHosts(url), { hosts: [{ host: 'db.example', port: 6432, url }], readWrite: false });
});

t.test(
  'a URL with several hosts gives one URL per node, in order, without target_session_attrs',
  async (t) => {
    const { hosts, readWrite } = databaseHosts(
      'postgresql://pier:s%40cret@10.0.0.1:5432,db2,[::1]:6102/pier?target_session_attrs=read-write&sslmode=require',
    );
    t.equal(readWrite, true);
    t.same(
      hosts.map((h) => [h.host, h.port, h.url]),
      [
        ['10.0.0.1', 5432, 'postgresql://pier:s%40cret@10.0.0.1:5432/pier?sslmode=require'],
        ['db2', 5432, 'postgresql://pier:s%40cret@db2:5432/pier?sslmode=require'],
        ['::1', 6102, 'postgresql://pier:s%40cret@[::1]:6102/pier?sslmode=require'],
      ],
    );
    t.equal(databaseHosts('postgresql://a:1,b:2/pier?target_session_attrs=any').readWrite, false);
    t.equal(
      databaseHosts('postgresql://a:1,b:2/pier').readWrite,
      true,
      'pier writes: the primary by default',
    );
  },
);

t.test('a bad port in the list is a clear error', async (t) => {
  t.throws(() => databaseHosts('postgresql://a:5432,b:xx/pier'), {
    message: 'DATABASE_URL names the host b with a port that is not a number',
  });
  t.throws(() => databaseHosts('postgresql://a:5432,/pier'), {
    message: 'DATABASE_URL names an empty host in its list of hosts',
  });
});

t.test('the password of a multi-host URL is not printed', async (t) => {
  t.equal(
    withoutPassword('postgresql://pier:topsecret@h1:5432,h2:5432/pier?target_session_attrs=read-write'),
    'postgresql://pier:***@h1:5432,h2:5432/pier?target_session_attrs=read-write',
  );
  t.equal(withoutPassword('postgresql://pier:topsecret@h1:5432/pier'), 'postgresql://pier:***@h1:5432/pier');
  t.equal(withoutPassword('postgresql://pier@h1:5432,h2/pier'), 'postgresql://pier@h1:5432,h2/pier');
});
