# shellcheck shell=bash
# Shell shared by the Docker smoke tests (docker/smoke.sh, docker/cluster-smoke.sh):
# logging and stage timings, installing what is missing, starting dockerd,
# the local Debian base image, pip's settings for builds, free ports.
# Sourced, not run. The sourcing script sets LOG_TAG before, and ends its
# EXIT trap with finish_run. Sets ROOT (the repository) and WORK (a scratch
# directory, /tmp/vigil-LOG_TAG.*, which finish_run removes).
#
# The settings read here (VIGIL_SMOKE_SUITE, VIGIL_SMOKE_BASE, VIGIL_SMOKE_MIRROR,
# VIGIL_SMOKE_KEEP_DOCKERD, PIP_INDEX_URL) are described in docker/smoke.sh.

# shellcheck disable=SC2034  # read by the sourcing script
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "/tmp/vigil-$LOG_TAG.XXXXXX")"
SUITE="${VIGIL_SMOKE_SUITE:-bookworm}"
BASE_IMAGE="${VIGIL_SMOKE_BASE:-vigil-base:${SUITE}}"
DOCKERD_PID=""
TIMINGS=()
# The script's own output, kept on fds 8 and 9: an EXIT trap that runs while a
# function's output is redirected (`f > file`, interrupted by a signal) would
# otherwise write its report into that file.
exec 8>&1 9>&2
restore_output() { exec 1>&8 2>&9; }
T_ALL=$(date +%s)

log() { printf '[%s %s] %s\n' "$LOG_TAG" "$(date +%H:%M:%S)" "$*"; }
die() { log "FAIL: $*"; exit 1; }

stage_start() { STAGE="$1"; T0=$(date +%s.%N); log "== $1"; }
stage_end() {
    local dt
    dt=$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    TIMINGS+=("$(printf '%-12s %7ss' "$STAGE" "$dt")")
    log "== $STAGE done in ${dt}s"
}

# The end of every run: stop the dockerd we started, print the timings and
# the verdict, remove WORK, and exit with $1 (the script's exit status).
finish_run() {
    local rc=$1
    if [ -n "$DOCKERD_PID" ] && [ "${VIGIL_SMOKE_KEEP_DOCKERD:-0}" != "1" ]; then
        kill "$DOCKERD_PID" 2> /dev/null
        for _ in $(seq 1 30); do kill -0 "$DOCKERD_PID" 2> /dev/null || break; sleep 0.5; done
    fi
    if [ "${#TIMINGS[@]}" -gt 0 ]; then
        log "stage timings:"
        printf '    %s\n' "${TIMINGS[@]}"
    fi
    log "total $(( $(date +%s) - T_ALL ))s, $([ "$rc" -eq 0 ] && echo PASSED || echo "FAILED (exit $rc)")"
    rm -rf "$WORK"
    exit "$rc"
}

uses_local_base() { [ "$BASE_IMAGE" = "vigil-base:${SUITE}" ]; }

# ------------------------------------------------------------ packages
# Both smoke tests need root (dockerd, debootstrap), docker and dockerd, and
# debootstrap when they make the local base image.
require_docker_tools() {
    [ "$(id -u)" -eq 0 ] || die "run as root (starts dockerd, runs debootstrap)"
    if uses_local_base; then
        install_missing docker docker.io dockerd docker.io debootstrap debootstrap
    else
        install_missing docker docker.io dockerd docker.io
    fi
}

# $@: pairs of "command package": installs (apt) each package whose command is missing.
install_missing() {
    local missing=() pkgs
    while [ "$#" -ge 2 ]; do
        command -v "$1" > /dev/null || missing+=("$2")
        shift 2
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    stage_start "packages"
    export DEBIAN_FRONTEND=noninteractive
    local apt_opts=(-y -q -o DPkg::Lock::Timeout=600)
    # shellcheck disable=SC2207
    pkgs=($(printf '%s\n' "${missing[@]}" | sort -u))
    log "apt-get install ${pkgs[*]}"
    if ! timeout 900 apt-get install "${apt_opts[@]}" "${pkgs[@]}" > "$WORK/apt.log" 2>&1; then
        timeout 600 apt-get update -q -o DPkg::Lock::Timeout=600 >> "$WORK/apt.log" 2>&1 || true
        timeout 900 apt-get install "${apt_opts[@]}" "${pkgs[@]}" >> "$WORK/apt.log" 2>&1 \
            || { tail -20 "$WORK/apt.log"; die "apt-get install ${pkgs[*]}"; }
    fi
    stage_end
}

# ------------------------------------------------------------ dockerd
# Starts dockerd when none answers. No bridge and no iptables (this machine
# allows neither), so every container uses the host's network.
ensure_dockerd() {
    docker info > /dev/null 2>&1 && return 0
    stage_start "dockerd"
    log "no Docker daemon answers; starting dockerd --bridge=none --iptables=false"
    dockerd --bridge=none --iptables=false > "$WORK/dockerd.log" 2>&1 8>&- 9>&- &  # not holding our output open
    DOCKERD_PID=$!
    for _ in $(seq 1 60); do
        docker info > /dev/null 2>&1 && break
        kill -0 "$DOCKERD_PID" 2> /dev/null || { tail -20 "$WORK/dockerd.log"; die "dockerd exited"; }
        sleep 1
    done
    docker info > /dev/null 2>&1 || { tail -20 "$WORK/dockerd.log"; die "dockerd not ready after 60s"; }
    stage_end
}

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

# Makes vigil-base:SUITE (a minimal Debian with python3 and venv, its apt
# pointing at the same mirror) unless it exists or another base was chosen.
ensure_base_image() {
    uses_local_base || return 0
    if docker image inspect "$BASE_IMAGE" > /dev/null 2>&1; then
        log "base image $BASE_IMAGE exists (cached); skipping debootstrap"
        return 0
    fi
    stage_start "debootstrap"
    local mirror="${VIGIL_SMOKE_MIRROR:-$(debian_mirror)}"
    log "debootstrap $SUITE from $mirror"
    timeout 1200 debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
        "$SUITE" "$WORK/rootfs" "$mirror" > "$WORK/debootstrap.log" 2>&1 \
        || { tail -30 "$WORK/debootstrap.log"; die "debootstrap"; }
    rm -rf "$WORK/rootfs/var/cache/apt/archives/"*.deb "$WORK/rootfs/var/lib/apt/lists/"* \
           "$WORK/rootfs/dev/"* "$WORK/rootfs/proc/"* "$WORK/rootfs/sys/"*
    tar -C "$WORK/rootfs" -c . | docker import \
        -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        -c 'ENV LANG=C.UTF-8' -c 'CMD ["/bin/bash"]' - "$BASE_IMAGE" > /dev/null
    rm -rf "$WORK/rootfs"
    log "imported $BASE_IMAGE ($(image_size "$BASE_IMAGE"))"
    stage_end
}

image_size() { docker image inspect -f '{{.Size}}' "$1" | awk '{ printf "%d MB", $1 / 1e6 }'; }

# ------------------------------------------------------------ pip in builds
# Sets PIP_BUILD_INDEX and PIP_BUILD_CA_CERTS: pip inside a build uses the
# same index as pip here (only http(s) indexes make sense in a container),
# and trusts the CA certificates added to this machine
# (/usr/local/share/ca-certificates), e.g. a TLS-intercepting proxy's.
# shellcheck disable=SC2034  # read by the sourcing script
pip_build_settings() {
    local index="${PIP_INDEX_URL:-$(python3 -m pip config get global.index-url 2> /dev/null || true)}"
    PIP_BUILD_INDEX=""
    case "$index" in http://* | https://*) PIP_BUILD_INDEX="$index" ;; esac
    PIP_BUILD_CA_CERTS=$(cat /usr/local/share/ca-certificates/*.crt 2> /dev/null || true)
}

# ------------------------------------------------------------ host side
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

http_status() {  # $1: URL -> prints the HTTP status code (000: no answer)
    python3 - "$1" << 'EOF'
import sys, urllib.error, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
        print(r.status)
except urllib.error.HTTPError as e:
    print(e.code)
except OSError:
    print("000")
EOF
}
