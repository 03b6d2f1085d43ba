#!/bin/sh
# Redis in the foreground on REDIS_LISTEN:REDIS_PORT, password REDIS_PASSWORD
# (none if empty). Nothing is kept on disk: the bus carries messages between
# running nodes, and every table's state is in PostgreSQL.
set -eu
set -- --bind "$REDIS_LISTEN" --port "$REDIS_PORT" --save '' --appendonly no --daemonize no --logfile ''
if [ -n "${REDIS_PASSWORD:-}" ]; then
    # From a file, not the command line, so that `ps` does not show it.
    conf=$(mktemp)
    printf 'requirepass "%s"\n' "$REDIS_PASSWORD" > "$conf"
    set -- "$conf" "$@"
fi
exec redis-server "$@"
