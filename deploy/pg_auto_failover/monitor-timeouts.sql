-- pg_auto_failover's monitor timeouts for pier: the loss of the primary's whole machine fails over
-- in about 25 s instead of about 50 s. Run once on the monitor, as a superuser:
--
--   psql -v ON_ERROR_STOP=1 -d 'postgresql://postgres@monitor.example:5432/pg_auto_failover' -f monitor-timeouts.sql
--
-- and node-timeouts.sh on each PostgreSQL node. Each value is why it is in
-- docs/high-availability.md ("Failing over in 30 s"); the price is a failover on a network
-- that stalls for a few seconds.

-- A node is checked every 2 s, each try waiting 2 s, tried twice 1 s apart (defaults: 5 s,
-- 5 s, three tries 2 s apart): a machine that stopped answering is marked bad within 7 s.
ALTER SYSTEM SET pgautofailover.health_check_period = 2000;
ALTER SYSTEM SET pgautofailover.health_check_timeout = 2000;
ALTER SYSTEM SET pgautofailover.health_check_max_retries = 1;
ALTER SYSTEM SET pgautofailover.health_check_retry_delay = 1000;

-- A primary whose keeper has not reported for 6 s (default 20 s), and failed its health check,
-- is failed over.
ALTER SYSTEM SET pgautofailover.node_considered_unhealthy_timeout = 6000;

-- The standby is promoted 15 s (default 30 s) after the failover began, the time a primary
-- that is cut off but alive is given to stop itself. It must stay longer than that primary's
-- keeper takes: network_partition_timeout (3 s, node-timeouts.sh), plus up to 3 s of its loop
-- (a 2 s connection timeout to the monitor and 1 s of sleep), plus stopping PostgreSQL.
ALTER SYSTEM SET pgautofailover.primary_demote_timeout = 15000;

SELECT pg_reload_conf();
