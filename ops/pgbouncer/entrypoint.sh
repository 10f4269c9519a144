#!/bin/sh
# Writes PgBouncer's configuration from the environment and runs it in the foreground, in
# transaction mode in front of POSTGRES_HOST:POSTGRES_PORT. Clients log in as POSTGRES_USER with
# POSTGRES_PASSWORD (SCRAM); PgBouncer logs in to Postgres with the same pair.
set -eu
dir=${PGBOUNCER_DIR:-/tmp/pgbouncer}
mkdir -p "$dir"
umask 077
printf '"%s" "%s"\n' "$POSTGRES_USER" "$POSTGRES_PASSWORD" >"$dir/userlist.txt"
cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=${POSTGRES_HOST} port=${POSTGRES_PORT:-5432}

[pgbouncer]
listen_addr = 0.0.0.0
listen_port = ${PGBOUNCER_PORT:-6432}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = ${PGBOUNCER_MAX_CLIENT_CONN:-1000}
default_pool_size = ${PGBOUNCER_POOL_SIZE:-20}
; vetflow sends no idle_in_transaction_session_timeout through a pooler (it would refuse the
; connection): the pooler ends a transaction a stuck client left open instead, as vetflow's 10 s would.
idle_transaction_timeout = ${PGBOUNCER_IDLE_TRANSACTION_TIMEOUT:-10}
ignore_startup_parameters = extra_float_digits
INI
exec pgbouncer "$dir/pgbouncer.ini"
