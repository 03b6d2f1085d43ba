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

LOG_TAG=smoke
# shellcheck source=docker/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"  # sets ROOT and WORK
IMAGE="vigil:smoke"
NAME="vigil-smoke-$$"
VOLUME="vigil-smoke-data-$$"

cleanup() {
    local rc=$?
    set +e
    restore_output
    if [ "$rc" -ne 0 ] && docker inspect "$NAME" > /dev/null 2>&1; then
        log "container logs (last 40 lines):"
        docker logs --tail 40 "$NAME" 2>&1 | sed 's/^/    /'
    fi
    timeout 60 docker rm -f "$NAME" > /dev/null 2>&1
    timeout 60 docker volume rm -f "$VOLUME" > /dev/null 2>&1
    if [ "${VIGIL_SMOKE_KEEP_IMAGE:-1}" = "0" ]; then docker rmi "$IMAGE" > /dev/null 2>&1; fi
    finish_run "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

require_docker_tools
ensure_dockerd
ensure_base_image

# ------------------------------------------------------------ build
stage_start "build"
build_args=(--build-arg "BASE_IMAGE=$BASE_IMAGE")
pip_build_settings
[ -z "$PIP_BUILD_INDEX" ] || build_args+=(--build-arg "PIP_INDEX_URL=$PIP_BUILD_INDEX")
[ -z "$PIP_BUILD_CA_CERTS" ] || build_args+=(--build-arg "PIP_CA_CERTS=$PIP_BUILD_CA_CERTS")
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
log "built $IMAGE ($(image_size "$IMAGE"))"
stage_end

# ------------------------------------------------------------ run
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

http_get() { http_status "http://127.0.0.1:$PORT$1"; }  # $1: path, from the host

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
# The client (docker/smoke_client.py) runs inside the container: its venv
# has websockets, and with host networking its 127.0.0.1 is the host's.
client() { timeout 60 docker exec -i "$NAME" python3 - "$@" < "$ROOT/docker/smoke_client.py"; }

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
