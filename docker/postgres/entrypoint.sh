#!/bin/sh
# First start: a new cluster on the volume, with a login role and a
# database of its own for Vigil (POSTGRES_USER, POSTGRES_DB), password
# POSTGRES_PASSWORD (scram-sha-256 over TCP). The superuser "postgres" is
# reached only through the container's own socket (peer): its password is
# random and forgotten. Then: the server, in the foreground, on
# POSTGRES_LISTEN:POSTGRES_PORT.
set -eu
: "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
# The Unix socket stays in the container's own /tmp (the package's
# /run/postgresql is made by systemd-tmpfiles, which does not run here).
SOCKETS=/tmp

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    echo "vigil-postgres: new cluster in $PGDATA"
    pwfile=$(mktemp)
    od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > "$pwfile"
    initdb --pgdata="$PGDATA" --username=postgres --pwfile="$pwfile" --encoding=UTF8 --locale=C.UTF-8 \
        --auth-local=peer --auth-host=scram-sha-256 > /dev/null
    rm -f "$pwfile"
    pg_ctl --pgdata="$PGDATA" --wait --silent \
        -o "-c listen_addresses='' -c unix_socket_directories=$SOCKETS" start
    psql --host="$SOCKETS" --username=postgres --dbname=postgres --quiet --set=ON_ERROR_STOP=1 \
        --set=user="$POSTGRES_USER" --set=db="$POSTGRES_DB" --set=password="$POSTGRES_PASSWORD" << 'SQL'
CREATE ROLE :"user" LOGIN PASSWORD :'password';
CREATE DATABASE :"db" OWNER :"user";
SQL
    pg_ctl --pgdata="$PGDATA" --wait --silent --mode=fast stop
fi

exec postgres -D "$PGDATA" -c listen_addresses="$POSTGRES_LISTEN" -p "$POSTGRES_PORT" \
    -c unix_socket_directories="$SOCKETS"
