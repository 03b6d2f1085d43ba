#!/usr/bin/env bash
# Smoke test of the Vigil cluster's Compose file (docker/compose.cluster.yaml), end to end:
#   dockerd (started if none runs) -> local Debian base image (debootstrap, cached)
#   -> compose build (PostgreSQL, Redis, Vigil, nginx) -> compose up on free 127.0.0.1 ports
#   -> all five healthy -> through the proxy: pages, a table made with the operator token,
#   commands over WebSocket -> the node owning the table (PostgreSQL's lease) killed -> a command
#   through the proxy is applied once the other node has taken the table over, the state from
#   before kept -> each node restarted once while the other holds every table, both healthy again,
#   a command through the proxy still applied.
# Cleans up its containers and volumes on exit; prints each stage's duration.
#
# Usage (as root, from anywhere):  bash docker/cluster-smoke.sh
# Settings (environment): those of docker/smoke.sh (VIGIL_SMOKE_BASE, _SUITE, _MIRROR,
# _KEEP_DOCKERD, PIP_INDEX_URL), and
#   VIGIL_SMOKE_KEEP_IMAGE=0    remove the vigil-cluster/*:smoke images at the end (kept by default, as a cache)
#   VIGIL_SMOKE_LEASE=3         the nodes' lease in seconds (VIGIL_LEASE_SECONDS)
set -euo pipefail

LOG_TAG=cluster
# shellcheck source=docker/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # sets ROOT and WORK
PROJECT="vigilsmoke$$"
COMPOSE_FILE="$ROOT/docker/compose.cluster.yaml"
SERVICES=(postgres redis vigil-a vigil-b proxy)
COMPOSE=()
UP=""

# $1: seconds at most; the rest: compose's arguments.
compose() { local limit=$1; shift; timeout "$limit" "${COMPOSE[@]}" -p "$PROJECT" -f "$COMPOSE_FILE" "$@"; }

cleanup() {
    local rc=$?
    set +e
    restore_output
    if [ -n "$UP" ]; then
        if [ "$rc" -ne 0 ]; then
            for svc in "${SERVICES[@]}"; do
                log "$svc logs (last 25 lines):"
                compose 30 logs --no-color --tail 25 "$svc" 2>&1 | sed 's/^/    /'
            done
        fi
        compose 120 down --volumes --remove-orphans --timeout 10 > "$WORK/down.log" 2>&1 \
            || { log "compose down failed:"; tail -5 "$WORK/down.log"; }
    fi
    if [ "${VIGIL_SMOKE_KEEP_IMAGE:-1}" = "0" ]; then
        for svc in postgres redis vigil proxy; do docker rmi "vigil-cluster/$svc:smoke" > /dev/null 2>&1; done
    fi
    finish_run "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------ tools
require_docker_tools
# Compose v2 (the docker CLI plugin) where it is installed, else Debian's
# docker-compose (v1; bookworm has no v2 package). The Compose file suits both.
if docker compose version > /dev/null 2>&1; then
    COMPOSE=(docker compose)
else
    install_missing docker-compose docker-compose
    COMPOSE=(docker-compose)
fi
log "compose: ${COMPOSE[*]} ($("${COMPOSE[@]}" version 2>/dev/null | head -n 1))"
ensure_dockerd
ensure_base_image

# ------------------------------------------------------------ settings
# Five distinct free ports on 127.0.0.1 (host networking: no port mapping).
ports=()
while [ "${#ports[@]}" -lt 5 ]; do
    p=$(free_port)
    case " ${ports[*]} " in *" $p "*) ;; *) ports+=("$p") ;; esac
done
export VIGIL_PG_PORT="${ports[0]}" VIGIL_REDIS_PORT="${ports[1]}" VIGIL_A_PORT="${ports[2]}" \
       VIGIL_B_PORT="${ports[3]}" VIGIL_PROXY_PORT="${ports[4]}"
export VIGIL_PROXY_LISTEN=127.0.0.1
export VIGIL_PUBLIC_URL="http://127.0.0.1:$VIGIL_PROXY_PORT"
export VIGIL_DB_PASSWORD VIGIL_REDIS_PASSWORD
VIGIL_DB_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
VIGIL_REDIS_PASSWORD=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
export VIGIL_BASE_IMAGE="$BASE_IMAGE" VIGIL_TAG=smoke
export VIGIL_LEASE_SECONDS="${VIGIL_SMOKE_LEASE:-3}" VIGIL_HEALTH_INTERVAL=1s
pip_build_settings
if [ -n "$PIP_BUILD_INDEX" ]; then export PIP_INDEX_URL="$PIP_BUILD_INDEX"; else unset PIP_INDEX_URL; fi
export PIP_CA_CERTS="$PIP_BUILD_CA_CERTS"
PROXY="127.0.0.1:$VIGIL_PROXY_PORT"
IMAGE="vigil-cluster/vigil:smoke"
compose 60 config -q || die "compose config"

# ------------------------------------------------------------ build
stage_start "build"
declare -A OLD_IDS=()
for img in postgres redis vigil proxy; do
    OLD_IDS[$img]=$(docker image inspect -f '{{.Id}}' "vigil-cluster/$img:smoke" 2> /dev/null || true)
done
# vigil-b has the same build and image as vigil-a: built once.
if ! compose 1500 build postgres redis vigil-a proxy > "$WORK/build.log" 2>&1; then
    tail -40 "$WORK/build.log"
    die "compose build"
fi
for img in postgres redis vigil proxy; do
    new=$(docker image inspect -f '{{.Id}}' "vigil-cluster/$img:smoke")
    if [ -n "${OLD_IDS[$img]}" ] && [ "${OLD_IDS[$img]}" != "$new" ]; then
        docker rmi "${OLD_IDS[$img]}" > /dev/null 2>&1 || true  # the previous build, now untagged
    fi
    log "built vigil-cluster/$img:smoke ($(image_size "vigil-cluster/$img:smoke"))"
done
stage_end

# ------------------------------------------------------------ up
declare -A CID=()
health() { docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$1" 2> /dev/null || echo gone; }

wait_healthy() {  # $1: seconds; $2...: services
    local limit=$1 svc state
    shift
    for _ in $(seq 1 "$limit"); do
        local all=1
        for svc in "$@"; do
            state=$(docker inspect -f '{{.State.Status}}' "${CID[$svc]}" 2> /dev/null || echo gone)
            case "$state" in
                running) [ "$(health "${CID[$svc]}")" = healthy ] || all=0 ;;
                created) all=0 ;;
                *) die "$svc is $state ($(docker inspect -f 'exit code {{.State.ExitCode}}, {{.RestartCount}} restarts' "${CID[$svc]}" 2> /dev/null))" ;;
            esac
        done
        [ "$all" = 1 ] && return 0
        sleep 1
    done
    die "not all healthy after ${limit}s: $(for svc in "$@"; do printf '%s=%s ' "$svc" "$(health "${CID[$svc]}")"; done)"
}

stage_start "up"
UP=1
# Compose starts each service once those it depends on are healthy.
if ! compose 300 up -d --no-build > "$WORK/up.log" 2>&1; then
    tail -20 "$WORK/up.log"
    die "compose up"
fi
for svc in "${SERVICES[@]}"; do
    CID[$svc]=$(compose 60 ps -q "$svc")
    [ -n "${CID[$svc]}" ] || die "no container for $svc"
done
wait_healthy 120 "${SERVICES[@]}"
log "healthy: ${SERVICES[*]} (PostgreSQL :$VIGIL_PG_PORT, Redis :$VIGIL_REDIS_PORT, nodes :$VIGIL_A_PORT :$VIGIL_B_PORT, proxy :$VIGIL_PROXY_PORT)"
for svc in "${SERVICES[@]}"; do
    [ "$(docker exec "${CID[$svc]}" id -u)" != 0 ] || die "$svc runs as root"
done
stage_end

# ------------------------------------------------------------ tokens
# The first node's banner names the demo table's links (at the public URL);
# the operator token, as an operator gets it later, from inside a node.
stage_start "tokens"
compose 60 logs --no-color vigil-a > "$WORK/a.log" 2>&1
grep "GM dashboard: $VIGIL_PUBLIC_URL/#token=" "$WORK/a.log" > /dev/null \
    || die "no 'GM dashboard: $VIGIL_PUBLIC_URL/#token=…' line in vigil-a's logs"
compose 60 logs --no-color vigil-b > "$WORK/b.log" 2>&1
if grep "GM dashboard:" "$WORK/b.log" > /dev/null; then die "vigil-b made a second demo table"; fi
OPERATOR=$(compose 60 exec -T vigil-a vigil token --operator | tr -d '\r') || die "vigil token --operator"
[ -n "$OPERATOR" ] || die "empty operator token"
log "demo banner in vigil-a's logs only; operator token: compose -p $PROJECT exec vigil-a vigil token --operator"
stage_end

# ------------------------------------------------------------ test
# The client (docker/smoke_client.py) runs in a container of its own from
# the Vigil image (websockets is in its venv), on the host's network:
# independent of the nodes it talks to.
client() {
    timeout 120 docker run --rm -i --network host --entrypoint python3 "$IMAGE" - "$@" \
        < "$ROOT/docker/smoke_client.py"
}
json_field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

# The node that owns the table now, as PostgreSQL's lease says (a or b; empty: none).
owner_of() {
    docker exec -i "${CID[postgres]}" psql -h /tmp -p "$VIGIL_PG_PORT" -U postgres -d vigil -At -v t="$1" \
        <<< "SELECT node FROM owners WHERE table_id = :'t' AND expires > now()"
}
node_port() { if [ "$1" = a ]; then echo "$VIGIL_A_PORT"; else echo "$VIGIL_B_PORT"; fi; }
healthz() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "http://127.0.0.1:$(node_port "$1")/healthz"; }

stage_start "test"
for path in /proxy-healthz /healthz / /watch /client/core/client.js /foundry/module.json; do
    [ "$(http_status "http://$PROXY$path")" = 200 ] || die "GET $path through the proxy"
done
log "GET /healthz, /, /watch, /client/, /foundry/ through the proxy: 200"
for node in a b; do
    h=$(healthz "$node")
    python3 -c 'import json, sys; h = json.loads(sys.argv[1]); sys.exit(h.get("node") != sys.argv[2] or h.get("bus_connected") is not True)' "$h" "$node" \
        || die "vigil-$node /healthz does not name node $node with its bus connected: $h"
    case "$h" in *"$VIGIL_REDIS_PASSWORD"*) die "vigil-$node /healthz shows the Redis password" ;; esac
    log "vigil-$node /healthz: $h"
done
WS="ws://$PROXY/ws"
SETUP=$(client setup "$WS" "$OPERATOR") || die "client setup through the proxy"
TABLE=$(json_field "$SETUP" table)
GM=$(json_field "$SETUP" gm_token)
REV=$(json_field "$SETUP" rev)
log "table $TABLE created with the operator token; mettle.pain 3 on hero acked at rev $REV (through the proxy)"
client check "$WS" "$GM" "$TABLE" "$REV" > /dev/null || die "state check through the proxy"
# Each node serves the table, whichever owns it.
for node in a b; do
    client check "ws://127.0.0.1:$(node_port "$node")/ws" "$GM" "$TABLE" "$REV" > /dev/null || die "state check on vigil-$node"
done
log "the same state through the proxy, from vigil-a and from vigil-b; vigil-$(owner_of "$TABLE") owns it"
stage_end

# ------------------------------------------------------------ failover
# A command through the proxy, sent again with the same id while the table
# moves, for at most five leases and 20 s; prints the rev of its ack.
apply_through_proxy() {  # $1: message id, $2: body
    local applied
    applied=$(client apply "$WS" "$GM" "$TABLE" "$1" "$2" $(( VIGIL_LEASE_SECONDS * 5 + 20 ))) || return 1
    log "command $1 acked at rev $(json_field "$applied" rev), attempt $(json_field "$applied" attempts) (before: $(json_field "$applied" before))" >&2
    json_field "$applied" rev
}

stage_start "failover"
OWNER=$(owner_of "$TABLE")
case "$OWNER" in a) OTHER=b ;; b) OTHER=a ;; *) die "table $TABLE has no owner in PostgreSQL (got '$OWNER')" ;; esac
VICTIM="vigil-$OWNER"
SURVIVOR="vigil-$OTHER"
# A crash, not a shutdown: the victim keeps its leases until they expire.
timeout 60 docker kill --signal KILL "${CID[$VICTIM]}" > /dev/null || die "docker kill $VICTIM"
T_KILL=$(date +%s.%N)
log "$VICTIM (owner of $TABLE) killed; a command through the proxy until $SURVIVOR has taken the table over"
ALLY='{"type": "character.create", "id": "ally", "name": "Ally", "kind": "pc", "sheet": {"mettle": 4}}'
REV2=$(apply_through_proxy after-failover "$ALLY") || die "no command applied after $VICTIM died"
TAKEOVER=$(awk -v a="$T_KILL" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
log "applied ${TAKEOVER}s after the kill (lease ${VIGIL_LEASE_SECONDS}s)"
[ "$REV2" -gt "$REV" ] || die "rev $REV2 after failover is not past $REV"
[ "$(owner_of "$TABLE")" = "$OTHER" ] || die "$TABLE is not owned by $SURVIVOR after the failover"
AFTER=$(client check "$WS" "$GM" "$TABLE" "$REV2" hero ally) || die "state after failover"
log "after failover: $AFTER"
[ "$(health "${CID[$VICTIM]}")" != healthy ] || die "$VICTIM still healthy after the kill"
log "$SURVIVOR /healthz: $(healthz "$OTHER")"
stage_end

# ------------------------------------------------------------ rejoin
# Each node comes back once while the other holds every table: the victim
# restarted after its crash, then the survivor after a clean stop (which
# hands its tables over at once). Both must become healthy as ordinary nodes.
stage_start "rejoin"
timeout 60 docker start "${CID[$VICTIM]}" > /dev/null || die "docker start $VICTIM"
wait_healthy 60 "$VICTIM"
log "$VICTIM back: $(healthz "$OWNER")"
timeout 60 docker restart -t 20 "${CID[$SURVIVOR]}" > /dev/null || die "docker restart $SURVIVOR"
wait_healthy 60 "$SURVIVOR"
log "$SURVIVOR back after a clean restart: $(healthz "$OTHER")"
SCOUT='{"type": "character.create", "id": "scout", "name": "Scout", "kind": "npc", "sheet": {"mettle": 3}}'
REV3=$(apply_through_proxy after-rejoin "$SCOUT") || die "no command applied after the restarts"
AFTER=$(client check "$WS" "$GM" "$TABLE" "$REV3" hero ally scout) || die "state after the restarts"
log "after the restarts: $AFTER; $TABLE owned by vigil-$(owner_of "$TABLE")"
stage_end

log "OK: the cluster builds on $BASE_IMAGE, is healthy, serves through the proxy, a command goes through after its table's node died, and both nodes rejoin"
