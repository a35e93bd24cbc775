#!/usr/bin/env bash
# The test suite: sets up (idempotent), then runs pytest over tests/ on two
# workers. Extra arguments go to pytest (e.g. -m "not slow", or a folder: tests/core).
# Usage: bash scripts/test.sh [pytest args]
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
bash scripts/setup.sh
source .venv/bin/activate  # the tests start jupyter-book and python from the venv
# Without paths among the arguments pytest runs testpaths (tests/, pyproject.toml); with some,
# only those (bash scripts/test.sh tests/core).
python -m pytest -n 2 --dist loadgroup -q "$@"
