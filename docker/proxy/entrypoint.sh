#!/bin/sh
# Writes nginx's configuration from the template (PROXY_LISTEN: where it
# listens; VIGIL_NODES: the nodes, host:port separated by spaces), checks
# it, and runs nginx in the foreground.
set -eu
servers=""
for node in $VIGIL_NODES; do
    # A node that refuses a connection or times out is passed over for
    # fail_timeout; requests go to the others meanwhile.
    servers="$servers server $node max_fails=1 fail_timeout=10s;"
done
[ -n "$servers" ] || { echo "vigil-proxy: VIGIL_NODES is empty" >&2; exit 1; }
conf=/tmp/nginx.conf
sed -e "s|@PROXY_LISTEN@|$PROXY_LISTEN|" -e "s|@UPSTREAM_SERVERS@|$servers|" \
    /etc/vigil-proxy/nginx.conf.template > "$conf"
nginx -e stderr -t -q -c "$conf"
echo "vigil-proxy: listening on $PROXY_LISTEN for $VIGIL_NODES"
exec nginx -e stderr -c "$conf" -g 'daemon off;'
