#!/usr/bin/env bash
# Every test of Vigil: lint and types (ruff, mypy --strict, ESLint), the
# Python suite (rules, server over real sockets, the store contract on SQLite
# and Debian's PostgreSQL, many nodes on PostgreSQL and Debian's Redis,
# browser tests in Debian's Chromium), the words check (every event and
# error the suite produced, rendered by the pages' and the module's
# JavaScript), the Foundry module's Node tests, rules coverage ≥ 95 %, and
# the benchmark at a tiny size. Installs what is missing first, so a fresh
# clone needs nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { printf '\n=== %s\n' "$*"; }
t0=$(date +%s)

stage "setup"
# pip's notices and index warnings go to a log, not the screen (shown only if the install fails).
mkdir -p artifacts
install_log=artifacts/install.log
if ! {
  { [ -x .venv/bin/pytest ] || { python3 -m venv .venv && .venv/bin/pip install --quiet --upgrade pip; }; } &&
    .venv/bin/pip install --quiet -e '.[dev]'
} >"$install_log" 2>&1; then
  echo "installing the dev dependencies failed; the end of $install_log:" >&2
  tail -n 30 "$install_log" >&2
  exit 1
fi
echo "dependencies installed (pip's output: $install_log)"
# Debian packages: Chromium for the browser tests, PostgreSQL's server for
# the PostgreSQL store's tests (they start a throwaway cluster of their own:
# tests/support/postgres.py), so the package's own cluster is not made, and
# Redis's server for the bus's tests (they too start their own, on a free
# port: tests/support/redis.py), so the system Redis that the package starts
# where an init system runs is stopped and disabled.
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-dejavu-core)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    mkdir -p /etc/postgresql-common/createcluster.d
    echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/vigil-tests.conf
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    if [[ " ${missing[*]} " == *" redis-server "* ]]; then
      systemctl disable --now redis-server.service >/dev/null 2>&1 || true
      service redis-server stop >/dev/null 2>&1 || true
    fi
  else
    echo "missing: sudo apt-get install ${missing[*]}" >&2; exit 1
  fi
fi
if [ -f foundry-module/package.json ]; then
  (cd foundry-module && npm ci --no-audit --no-fund --loglevel=error)
fi

stage "lint and types"
.venv/bin/ruff check server tests bench docker
.venv/bin/ruff format --check server tests bench docker
.venv/bin/mypy
# The import layers of docs/design.md "Shape" (pyproject.toml [tool.importlinter]).
.venv/bin/lint-imports --no-cache
if [ -f foundry-module/package.json ]; then
  (cd foundry-module && npm run --silent lint)
fi

stage "python tests (rules, server, browser, bench smoke)"
.venv/bin/pytest --cov=vigil --cov-branch --cov-report= tests

stage "words: every event and error the suites produced, as the pages and the module render them"
# pytest wrote artifacts/words/capture.json (tests/support/word_capture.py); this renders it
# with the pages' and the module's own JavaScript and lists the codes no test produced.
node foundry-module/tools/check-words.mjs

stage "rules branch coverage >= 95%"
.venv/bin/coverage report --include='server/vigil/rules/*' --fail-under=95 | tail -n 3

if [ -f foundry-module/package.json ]; then
  stage "foundry module tests (node --test)"
  (cd foundry-module && npm test --silent)
fi
printf '\nall tests passed in %ss\n' "$(( $(date +%s) - t0 ))"
