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

# A primary whose keeper reaches neither the monitor nor a standby for 5 s (default 20 s) stops
# PostgreSQL: a primary cut off from the others stops before the monitor's 15 s demote timeout
# ends and the standby takes writes. The keeper reloads its configuration on this command.
pg_autoctl config set --pgdata "$PGDATA" timeout.network_partition_timeout 5

# The keeper counts a standby as reached while its walsender is listed, and the walsender of a
# standby that vanished (no reset, a lost machine or a cut network) is listed until this
# timeout (pg_autoctl sets 30 s): 5 s keeps a primary cut off from both the monitor and the
# standby within 5 + 5 s, plus its loop, well inside the monitor's 6 + 15 s.
psql -v ON_ERROR_STOP=1 -X -q \
  -h "$(pg_autoctl config get --pgdata "$PGDATA" postgresql.host)" \
  -p "$(pg_autoctl config get --pgdata "$PGDATA" postgresql.port)" \
  -d postgres \
  -c "ALTER SYSTEM SET wal_sender_timeout = '5s'" \
  -c 'SELECT pg_reload_conf()'
