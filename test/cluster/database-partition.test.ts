/**
 * The rule that keeps pg_auto_failover from two primaries, on a real cluster with the timeouts
 * pier ships (deploy/pg_auto_failover/): a primary cut off from both the monitor and the standby
 * (every process of theirs stopped, as a cut network looks from the primary) stops its
 * PostgreSQL before the monitor could promote the standby, node_considered_unhealthy_timeout
 * plus primary_demote_timeout after the primary's last report.
 */
import t from 'tap';
import { failoverTest, postmasterPid } from '../helpers/auto-failover.js';
import { waitFor } from '../helpers/wait.js';

failoverTest(
  t,
  'a primary cut off from the monitor and the standby stops before the standby could be promoted',
  240_000,
  async (t, cluster) => {
    const settings = await cluster.monitorSettings();
    // The keeper reports every second, so its last report may be up to a second before the cut.
    const promotableAfter =
      (settings.node_considered_unhealthy_timeout! + settings.primary_demote_timeout!) / 1000 - 1;
    const { node, at: cutAt, heal, after } = await cluster.cutOffPrimary();
    t.teardown(heal);
    const postmaster = postmasterPid(node);
    await waitFor(
      () => {
        try {
          process.kill(postmaster, 0);
          return false;
        } catch {
          return true;
        }
      },
      "the cut-off primary's PostgreSQL to stop",
      90_000,
      100,
    ).catch((error: unknown) => {
      t.comment(after());
      throw error;
    });
    const seconds = (Date.now() - cutAt) / 1000;
    const inTime = t.ok(
      seconds < promotableAfter,
      `${node.name} stopped PostgreSQL ${seconds.toFixed(1)} s after the cut, before the standby could be promoted (${promotableAfter} s)`,
    );
    if (!inTime) t.comment(after());
  },
);
