#!/usr/bin/env bash
# Set up Vigil in a local virtualenv (first run only) and start it with its
# embedded defaults: SQLite in ./vigil-data, a demo table, printed URLs and
# tokens. Extra arguments go to `vigil serve` (see `vigil serve --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/vigil ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
  .venv/bin/pip install --quiet -e .
fi
exec .venv/bin/vigil serve "$@"
