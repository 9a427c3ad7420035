#!/bin/sh
# pg_auto_failover's node timeouts for pier, the other half of monitor-timeouts.sql. Run as
# user postgres on each PostgreSQL node (db1 and db2) once its keeper runs, and again on a node
# created anew:
#
#   PGDATA=/var/lib/postgresql/pier sh node-timeouts.sh
#
# Why these values: docs/high-availability.md ("Failing over in 30 s").
set -eu
: "${PGDATA:?set PGDATA to the node's data directory}"

# A primary whose keeper reaches neither the monitor nor a standby for 3 s (default 20 s) stops
# PostgreSQL: a primary cut off from the others stops before the monitor's 15 s demote timeout
# ends and the standby takes writes. Its checks come every 4 s once the monitor is lost, so 3 s
# rather than 5 s saves a check, 4 s, when the standby was last seen listed at the check before.
# The keeper reloads its configuration on this command.
pg_autoctl config set --pgdata "$PGDATA" timeout.network_partition_timeout 3

# The keeper counts a standby as reached while its walsender is listed, and the walsender of a
# standby that vanished (no reset, a lost machine or a cut network) is listed until its
# timeout (pg_autoctl sets 30 s). pg_autoctl 2.0 counts a primary cut off only once it has seen
# the standby listed at one of its checks after losing the monitor (a check comes 3-4 s after
# the cut, and every 4 s from then): a walsender gone before that first check left the primary
# up for ever, a second primary once the standby was promoted (seen in 2 of 20 loaded test runs
# with 5 s). So the standby answers every second, and its walsender outlives the cut by 7-8 s,
# past the first check; the primary then stops within 8 + 3 s, plus a check of its loop, about
# 15 s, inside the monitor's 6 + 15 s.
psql -v ON_ERROR_STOP=1 -X -q \
  -h "$(pg_autoctl config get --pgdata "$PGDATA" postgresql.host)" \
  -p "$(pg_autoctl config get --pgdata "$PGDATA" postgresql.port)" \
  -d postgres \
  -c "ALTER SYSTEM SET wal_sender_timeout = '8s'" \
  -c "ALTER SYSTEM SET wal_receiver_status_interval = '1s'" \
  -c 'SELECT pg_reload_conf()'
