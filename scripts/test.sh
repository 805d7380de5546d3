#!/usr/bin/env bash
# The whole test suite: set-up, formatting gate, C++ unit and MPI tests, Python tests.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$ECLUSE_ROOT/scripts/setup.sh"
"$ECLUSE_ROOT/scripts/check-format.sh"
ctest --test-dir "$ECLUSE_BUILD" --output-on-failure -j 2
"$ECLUSE_VENV/bin/python" -m pytest -q "$ECLUSE_ROOT/tests/python"
