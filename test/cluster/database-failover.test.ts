/**
 * pier's connections on a real pg_auto_failover pair with the timeouts pier ships: the ORM's
 * pool, the flow's connections, the listener and the node-presence session, all opened once on
 * a multi-host DATABASE_URL, keep writing through the loss of the primary's machine (`kill -9` of
 * its keeper, then of its PostgreSQL), within 30 s, and through a planned switchover, with no
 * restart; every write that was acknowledged is on the new primary, once.
 */
import t from 'tap';
import pino from 'pino';
import { migrate, openDatabase } from '../../storage/db.js';
import { FlowConnections } from '../../storage/flow-connections.js';
import { DatabaseListener } from '../../storage/listener.js';
import { NodePresence } from '../../runtime/cluster/presence.js';
import { nodeLockClass } from '../../flow/node-presence.js';
import { primaryLocator } from '../../storage/primary-locator.js';
import { failoverTest, query, type FailoverNode } from '../helpers/auto-failover.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/flow.js';
import { runDoctor } from '../../cli/doctor/run-doctor.js';

failoverTest(
  t,
  "writes move to the new primary after the primary's machine is lost and after a switchover",
  300_000,
  async (t, cluster) => {
    const logger = pino({ level: 'silent' });
    const orm = await openDatabase(cluster.url);
    t.teardown(() => orm.close());
    await migrate(orm);
    await orm.em
      .getConnection()
      .execute('create table failover_probe (id text primary key, via text not null)');
    const flow = new FlowConnections({ url: cluster.url, applicationName: 'pier failover test' });
    t.teardown(() => flow.close());
    const heard: string[] = [];
    const listener = new DatabaseListener(cluster.url, logger);
    listener.on('failover_probe', (payload) => heard.push(payload));
    await listener.start();
    t.teardown(() => listener.close());
    const presence = new NodePresence(cluster.url, logger);
    await presence.start();
    t.teardown(() => presence.close());
    const changes: string[] = [];
    primaryLocator(cluster.url).onChange((from, to) => changes.push(`${from.port}->${to.port}`));

    // Writes every 50 ms through both pools; an id counts as acknowledged once its insert returned.
    const acknowledged: string[] = [];
    let failed = 0;
    let stop = false;
    let n = 0;
    const write = async (via: 'orm' | 'flow') => {
      const id = `${via}-${n++}`;
      try {
        if (via === 'orm')
          await orm.em
            .getConnection()
            .execute('insert into failover_probe (id, via) values (?, ?)', [id, via]);
        else {
          const connection = await flow.acquireConnection();
          try {
            await connection.query('insert into failover_probe (id, via) values ($1, $2)', [id, via]);
          } finally {
            await flow.releaseConnection(connection);
          }
        }
        acknowledged.push(id);
        return Date.now();
      } catch {
        failed++;
        return undefined;
      }
    };
    const lastOk = { orm: Date.now(), flow: Date.now() };
    // Stopped by a failure too: a loop left writing kept the file running to its timeout.
    t.teardown(() => {
      stop = true;
    });
    const loop = (async () => {
      while (!stop) {
        for (const via of ['orm', 'flow'] as const) lastOk[via] = (await write(via)) ?? lastOk[via];
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    /** Seconds from `since` until both pools wrote again on `node` and presence is held there. */
    const resumedOn = async (node: FailoverNode, since: number, what: string) => {
      await waitFor(() => lastOk.orm > since && lastOk.flow > since, `writes after ${what}`, 90_000, 100);
      const seconds = (Math.max(lastOk.orm, lastOk.flow) - since) / 1000;
      const [where] = await query<{ primary: boolean }>(
        node.url,
        'select not pg_is_in_recovery() as primary',
      );
      t.equal(where?.primary, true, `${node.name} is the primary after ${what}`);
      await waitFor(
        async () =>
          (
            await query(
              node.url,
              `select 1 from pg_locks where locktype = 'advisory' and classid = $1 and objid = $2 and granted`,
              [nodeLockClass, presence.nodeId],
            )
          ).length === 1,
        `the presence lock on ${node.name}`,
        15_000,
        200,
      );
      await waitFor(
        async () => {
          await query(node.url, `select pg_notify('failover_probe', $1)`, [what]);
          return heard.includes(what);
        },
        `a notice heard after ${what}`,
        15_000,
        500,
      );
      t.comment(`${what}: both pools wrote again on ${node.name} after ${seconds.toFixed(1)} s`);
      return seconds;
    };

    await new Promise((r) => setTimeout(r, 1000));
    const killedAt = Date.now();
    const killed = await cluster.killNode();
    const afterKill = await waitFor(
      async () => {
        const p = await cluster.primary();
        return p && p.name !== killed.name ? p : undefined;
      },
      'the secondary promoted',
      90_000,
      250,
    );
    const killSeconds = await resumedOn(afterKill, killedAt, 'the machine lost');
    t.ok(
      killSeconds <= 30,
      `writes resumed ${killSeconds.toFixed(1)} s after the machine was lost (at most 30 s)`,
    );

    // The machine comes back: its keeper rejoins it as the standby the switchover needs.
    await cluster.restart(killed);
    await cluster.stable(180_000);
    const switchedAt = Date.now();
    await cluster.switchover();
    const afterSwitch = await cluster.stable(60_000);
    t.not(afterSwitch.name, afterKill.name, 'the switchover moved the primary');
    const switchSeconds = await resumedOn(afterSwitch, switchedAt, 'switchover');
    t.ok(switchSeconds < 30, `writes resumed ${switchSeconds.toFixed(1)} s after the switchover began`);

    stop = true;
    await loop;
    t.ok(failed > 0, 'some writes failed during the failovers (the test saw them)');
    const stored = await query<{ id: string }>(afterSwitch.url, 'select id from failover_probe');
    const ids = new Set(stored.map((r) => r.id));
    t.same(
      acknowledged.filter((id) => !ids.has(id)),
      [],
      `every acknowledged write (${acknowledged.length}) is on the final primary`,
    );

    // pier doctor on the multi-host URL says which node is primary now.
    const doctor = await runDoctor({
      env: {
        ...process.env,
        DATABASE_URL: cluster.url,
        PIER_DATA_DIR: await tempDir(t, 'pier-failover-doctor-'),
        PIER_SECRET_KEY: 'failover-test-key',
      },
    });
    const standby = cluster.nodes.find((node) => node.name !== afterSwitch.name)!;
    t.match(
      doctor.find((c) => c.id === 'database'),
      {
        status: 'ok',
        detail: `postgresql://postgres@127.0.0.1:${cluster.nodes[0]!.port},127.0.0.1:${cluster.nodes[1]!.port}/pier?target_session_attrs=read-write (DATABASE_URL; nodes now: ${cluster.nodes
          .map((node) => `127.0.0.1:${node.port} ${node === standby ? 'standby' : 'primary'}`)
          .join(', ')}); all`,
      },
    );
    t.same(changes.length >= 2, true, `the process saw the primary change twice (${changes.join(', ')})`);
  },
);
