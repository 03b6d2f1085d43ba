#!/usr/bin/env bash
# Smoke test of the Vigil Docker image, end to end:
#   dockerd (started if none runs) -> local Debian base image (debootstrap, cached)
#   -> docker build -> run on a free 127.0.0.1 port with a named volume
#   -> healthcheck healthy -> create a table with the operator token, apply a command
#   -> docker restart -> reconnect: the command's effect is in the snapshot.
# Cleans up its container and volume on exit; prints each stage's duration.
#
# Usage (as root, from anywhere):  bash docker/smoke.sh
# Settings (environment):
#   VIGIL_SMOKE_BASE=IMAGE      base image to build on (default vigil-base:bookworm, made
#                               here by debootstrap; e.g. python:3.11-slim where a registry is reachable)
#   VIGIL_SMOKE_SUITE=bookworm  Debian suite for the base image
#   VIGIL_SMOKE_MIRROR=URL      Debian mirror (default: the one apt uses on this machine)
#   VIGIL_SMOKE_KEEP_DOCKERD=1  leave a dockerd that this script started running
#   VIGIL_SMOKE_KEEP_IMAGE=0    remove the vigil:smoke image at the end (kept by default, as a cache)
#   PIP_INDEX_URL               package index for pip inside the build (default: pip's config here, else PyPI)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SUITE="${VIGIL_SMOKE_SUITE:-bookworm}"
BASE_IMAGE="${VIGIL_SMOKE_BASE:-vigil-base:${SUITE}}"
IMAGE="vigil:smoke"
NAME="vigil-smoke-$$"
VOLUME="vigil-smoke-data-$$"
WORK="$(mktemp -d /tmp/vigil-smoke.XXXXXX)"
DOCKERD_PID=""
TIMINGS=()
T_ALL=$(date +%s)

log() { printf '[smoke %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "FAIL: $*"; exit 1; }

stage_start() { STAGE="$1"; T0=$(date +%s.%N); log "== $1"; }
stage_end() {
    local dt
    dt=$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    TIMINGS+=("$(printf '%-12s %7ss' "$STAGE" "$dt")")
    log "== $STAGE done in ${dt}s"
}

cleanup() {
    local rc=$?
    set +e
    if [ "$rc" -ne 0 ] && docker inspect "$NAME" > /dev/null 2>&1; then
        log "container logs (last 40 lines):"
        docker logs --tail 40 "$NAME" 2>&1 | sed 's/^/    /'
    fi
    timeout 60 docker rm -f "$NAME" > /dev/null 2>&1
    timeout 60 docker volume rm -f "$VOLUME" > /dev/null 2>&1
    if [ "${VIGIL_SMOKE_KEEP_IMAGE:-1}" = "0" ]; then docker rmi "$IMAGE" > /dev/null 2>&1; fi
    if [ -n "$DOCKERD_PID" ] && [ "${VIGIL_SMOKE_KEEP_DOCKERD:-0}" != "1" ]; then
        kill "$DOCKERD_PID" 2> /dev/null
        for _ in $(seq 1 30); do kill -0 "$DOCKERD_PID" 2> /dev/null || break; sleep 0.5; done
    fi
    rm -rf "$WORK"
    if [ "${#TIMINGS[@]}" -gt 0 ]; then
        log "stage timings:"
        printf '    %s\n' "${TIMINGS[@]}"
    fi
    log "total $(( $(date +%s) - T_ALL ))s, $([ "$rc" -eq 0 ] && echo PASSED || echo "FAILED (exit $rc)")"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------ packages
[ "$(id -u)" -eq 0 ] || die "run as root (starts dockerd, runs debootstrap)"
missing=()
command -v docker > /dev/null || missing+=(docker.io)
command -v dockerd > /dev/null || missing+=(docker.io)
if [ "$BASE_IMAGE" = "vigil-base:${SUITE}" ]; then
    command -v debootstrap > /dev/null || missing+=(debootstrap)
fi
if [ "${#missing[@]}" -gt 0 ]; then
    stage_start "packages"
    export DEBIAN_FRONTEND=noninteractive
    apt_opts=(-y -q -o DPkg::Lock::Timeout=600)
    # shellcheck disable=SC2207
    pkgs=($(printf '%s\n' "${missing[@]}" | sort -u))
    log "apt-get install ${pkgs[*]}"
    if ! timeout 900 apt-get install "${apt_opts[@]}" "${pkgs[@]}" > "$WORK/apt.log" 2>&1; then
        timeout 600 apt-get update -q -o DPkg::Lock::Timeout=600 >> "$WORK/apt.log" 2>&1 || true
        timeout 900 apt-get install "${apt_opts[@]}" "${pkgs[@]}" >> "$WORK/apt.log" 2>&1 \
            || { tail -20 "$WORK/apt.log"; die "apt-get install ${pkgs[*]}"; }
    fi
    stage_end
fi

# ------------------------------------------------------------ dockerd
if ! docker info > /dev/null 2>&1; then
    stage_start "dockerd"
    log "no Docker daemon answers; starting dockerd --bridge=none --iptables=false"
    dockerd --bridge=none --iptables=false > "$WORK/dockerd.log" 2>&1 &
    DOCKERD_PID=$!
    for _ in $(seq 1 60); do
        docker info > /dev/null 2>&1 && break
        kill -0 "$DOCKERD_PID" 2> /dev/null || { tail -20 "$WORK/dockerd.log"; die "dockerd exited"; }
        sleep 1
    done
    docker info > /dev/null 2>&1 || { tail -20 "$WORK/dockerd.log"; die "dockerd not ready after 60s"; }
    stage_end
fi

# ------------------------------------------------------------ base image
debian_mirror() {
    # The mirror apt uses here: deb822 .sources first, then one-line lists.
    local uri
    uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' /etc/apt/sources.list.d/*.sources 2> /dev/null \
          | grep -v -e security -e '^cdrom' | head -n 1 || true)
    if [ -z "$uri" ]; then
        uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2> /dev/null \
              | awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; break } }' \
              | grep -v security | head -n 1 || true)
    fi
    echo "${uri:-http://deb.debian.org/debian}"
}

if [ "$BASE_IMAGE" = "vigil-base:${SUITE}" ]; then
    if docker image inspect "$BASE_IMAGE" > /dev/null 2>&1; then
        log "base image $BASE_IMAGE exists (cached); skipping debootstrap"
    else
        stage_start "debootstrap"
        MIRROR="${VIGIL_SMOKE_MIRROR:-$(debian_mirror)}"
        log "debootstrap $SUITE from $MIRROR"
        timeout 1200 debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
            "$SUITE" "$WORK/rootfs" "$MIRROR" > "$WORK/debootstrap.log" 2>&1 \
            || { tail -30 "$WORK/debootstrap.log"; die "debootstrap"; }
        rm -rf "$WORK/rootfs/var/cache/apt/archives/"*.deb "$WORK/rootfs/var/lib/apt/lists/"* \
               "$WORK/rootfs/dev/"* "$WORK/rootfs/proc/"* "$WORK/rootfs/sys/"*
        tar -C "$WORK/rootfs" -c . | docker import \
            -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            -c 'ENV LANG=C.UTF-8' -c 'CMD ["/bin/bash"]' - "$BASE_IMAGE" > /dev/null
        rm -rf "$WORK/rootfs"
        log "imported $BASE_IMAGE ($(docker image inspect -f '{{.Size}}' "$BASE_IMAGE" | awk '{ printf "%d MB", $1 / 1e6 }'))"
        stage_end
    fi
fi

# ------------------------------------------------------------ build
stage_start "build"
build_args=(--build-arg "BASE_IMAGE=$BASE_IMAGE")
# pip inside the build uses the same index as pip here (only http(s) indexes make
# sense in a container), and trusts the CA certificates added to this machine
# (/usr/local/share/ca-certificates), e.g. a TLS-intercepting proxy's.
index="${PIP_INDEX_URL:-$(python3 -m pip config get global.index-url 2> /dev/null || true)}"
case "$index" in http://* | https://*) build_args+=(--build-arg "PIP_INDEX_URL=$index") ;; esac
extra_certs=$(cat /usr/local/share/ca-certificates/*.crt 2> /dev/null || true)
[ -z "$extra_certs" ] || build_args+=(--build-arg "PIP_CA_CERTS=$extra_certs")
OLD_IMAGE=$(docker image inspect -f '{{.Id}}' "$IMAGE" 2> /dev/null || true)
if ! timeout 1200 docker build --network host "${build_args[@]}" \
        -f "$ROOT/docker/Dockerfile" -t "$IMAGE" "$ROOT" > "$WORK/build.log" 2>&1; then
    tail -40 "$WORK/build.log"
    die "docker build"
fi
NEW_IMAGE=$(docker image inspect -f '{{.Id}}' "$IMAGE")
if [ -n "$OLD_IMAGE" ] && [ "$OLD_IMAGE" != "$NEW_IMAGE" ]; then
    docker rmi "$OLD_IMAGE" > /dev/null 2>&1 || true  # the previous vigil:smoke, now untagged
fi
log "built $IMAGE ($(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{ printf "%d MB", $1 / 1e6 }'))"
stage_end

# ------------------------------------------------------------ run
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_healthy() {  # $1: seconds
    local status=""
    for _ in $(seq 1 "$1"); do
        status=$(docker inspect -f '{{.State.Health.Status}}' "$NAME" 2> /dev/null || echo gone)
        [ "$status" = "healthy" ] && return 0
        [ "$(docker inspect -f '{{.State.Running}}' "$NAME" 2> /dev/null)" = "true" ] || die "container stopped"
        sleep 1
    done
    die "container not healthy after $1s (status: $status)"
}

http_get() {  # $1: path -> prints the status code (from the host, over 127.0.0.1)
    python3 - "http://127.0.0.1:$PORT$1" << 'EOF'
import sys, urllib.error, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
        print(r.status)
except urllib.error.HTTPError as e:
    print(e.code)
EOF
}

stage_start "run"
PORT=$(free_port)
docker volume create "$VOLUME" > /dev/null
# --network host: dockerd runs with --bridge=none here; the server binds 127.0.0.1 only.
docker run -d --name "$NAME" --network host -v "$VOLUME:/data" \
    -e VIGIL_HOST=127.0.0.1 -e VIGIL_PORT="$PORT" -e VIGIL_LOG_FORMAT=json \
    --health-interval 1s --health-start-period 30s "$IMAGE" > /dev/null  # the image's own CMD
wait_healthy 60
[ "$(docker exec "$NAME" id -u)" != 0 ] || die "the server runs as root"
log "healthy on 127.0.0.1:$PORT as user $(docker exec "$NAME" id -un) (HEALTHCHECK passed)"
# Read the banner from a file: `grep -q` on a pipe can end the pipe early,
# and with pipefail that SIGPIPE would read as a failure.
OPERATOR=""
BANNER="$(mktemp)"
for _ in $(seq 1 30); do
    docker logs "$NAME" > "$BANNER" 2> /dev/null || true
    OPERATOR=$(sed -n 's/^Operator token: //p' "$BANNER")
    [ -n "$OPERATOR" ] && break
    sleep 1
done
[ -n "$OPERATOR" ] || die "no 'Operator token:' line in docker logs"
grep '^GM dashboard: http://.*#token=' "$BANNER" > /dev/null || die "no demo 'GM dashboard:' line"
rm -f "$BANNER"
stage_end

# ------------------------------------------------------------ test
# The client runs inside the container (its venv has websockets); with host
# networking its 127.0.0.1 is the host's.
CLIENT='
import asyncio, json, sys
import websockets

async def session(url, token, bodies=(), table=None):
    async with websockets.connect(url, open_timeout=10, close_timeout=5) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "token": token}))
        snapshot = None
        for _ in range(5):
            msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
            if msg["type"] == "error":
                sys.exit(f"hello refused: {msg}")
            if msg["type"] == "snapshot":
                snapshot = msg
                break
            if msg["type"] == "welcome" and table is None and bodies:
                break  # operator: no table, no snapshot
        acks = []
        for n, body in enumerate(bodies, 1):
            cmd = {"type": "cmd", "id": str(n), "body": body}
            if table:
                cmd["table"] = table
            await ws.send(json.dumps(cmd))
            for _ in range(50):
                msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if msg.get("id") == cmd["id"] and msg["type"] in ("ack", "error"):
                    break
            else:
                sys.exit(f"no reply to {cmd}")
            if msg["type"] != "ack":
                sys.exit(f"refused: {body} -> {msg}")
            acks.append(msg)
        return snapshot, acks

async def main(mode, url, token, table=None, rev=None):
    if mode == "setup":
        _, (made,) = await session(url, token, [{"type": "table.create", "system": "mettle", "name": "Smoke"}])
        table, gm = made["result"]["table"], made["result"]["gm_token"]
        _, acks = await session(url, gm, [
            {"type": "character.create", "id": "hero", "name": "Hero", "kind": "pc", "sheet": {"mettle": 5}},
            {"type": "mettle.pain", "char": "hero", "amount": 3},
        ], table=table)
        print(json.dumps({"table": table, "gm_token": gm, "rev": acks[-1]["rev"]}))
    else:
        snap, _ = await session(url, token)
        pain = snap["state"]["characters"]["hero"]["sheet"]["pain"]
        print(json.dumps({"table": snap["table"], "rev": snap["rev"], "pain": pain}))
        got_table, got_rev = snap["table"], snap["rev"]
        if got_table != table or got_rev != int(rev) or pain != 3:
            sys.exit(f"state lost: table {got_table} rev {got_rev} (want {rev}) pain {pain} (want 3)")

asyncio.run(main(*sys.argv[1:]))
'
client() { timeout 60 docker exec -i "$NAME" python3 -c "$CLIENT" "$@"; }

stage_start "test"
WS="ws://127.0.0.1:$PORT/ws"
[ "$(http_get /healthz)" = 200 ] || die "/healthz from the host"
[ "$(http_get /schemas/protocol.schema.json)" = 200 ] || die "/schemas/ not served (source layout in the image?)"
# The image installs the wheel: every page and client module must come from
# its package data, and the installed package must not be a source checkout.
for path in / /watch /client/core/client.js /client/core/display.js /foundry/module.json /foundry/lang/en.json; do
    [ "$(http_get "$path")" = 200 ] || die "$path not served from the installed wheel"
done
where=$(docker exec "$NAME" python3 -c 'import vigil; print(vigil.__file__)')
case "$where" in /opt/venv/lib/*) ;; *) die "vigil imported from $where, not the installed wheel" ;; esac
# The PostgreSQL store's driver is in the image (VIGIL_STORE=postgresql://…).
docker exec "$NAME" python3 -c 'import psycopg, psycopg_pool' || die "the image lacks the PostgreSQL driver"
log "GET /healthz, /, /watch, /schemas/, /client/core/*.js, /foundry/* from the host: 200; vigil from $where"
SETUP=$(client setup "$WS" "$OPERATOR") || die "client setup"
read -r TABLE GM REV < <(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(d["table"], d["gm_token"], d["rev"])' "$SETUP")
log "table $TABLE created with the operator token; mettle.pain 3 on hero acked at rev $REV"
client check "$WS" "$GM" "$TABLE" "$REV" > /dev/null || die "state check before restart"
stage_end

# ------------------------------------------------------------ restart
stage_start "restart"
timeout 60 docker restart -t 20 "$NAME" > /dev/null || die "docker restart"
wait_healthy 60
docker logs "$NAME" 2>&1 | grep shutting_down > /dev/null || die "no graceful shutdown in the logs"
AFTER=$(client check "$WS" "$GM" "$TABLE" "$REV") || die "state did not survive the restart"
log "after restart: $AFTER"
stage_end

log "OK: image builds on $BASE_IMAGE, runs as non-root, is healthy, and keeps state across a restart"
