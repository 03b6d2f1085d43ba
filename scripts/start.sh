#!/usr/bin/env bash
# Set up Vigil in a local virtualenv (first run only) and start it with its
# embedded defaults: SQLite in ./vigil-data, a demo table, printed URLs and
# tokens. Extra arguments go to `vigil serve` (see `vigil serve --help`).
#
# The first run's install writes everything pip says (its notices and
# warnings about indexes, hundreds of lines on some machines) to a log file,
# not the screen: the links the server prints are what a new GM needs to
# see. Only a failed install shows the log's end.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/vigil ]; then
  mkdir -p vigil-data
  log=vigil-data/install.log
  echo "First start: installing Vigil into .venv (details in $log)…"
  if ! {
    python3 -m venv .venv &&
      .venv/bin/pip install --quiet --upgrade pip &&
      .venv/bin/pip install --quiet -e .
  } >"$log" 2>&1; then
    echo "The install failed; the end of $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
fi
exec .venv/bin/vigil serve "$@"
