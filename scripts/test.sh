#!/usr/bin/env bash
# The whole test suite: set-up, formatting gate, C++ unit and MPI tests, Python tests, then the
# C++ suite under ASan/UBSan (skip that stage with ECLUSE_SKIP_SANITIZERS=1).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$ECLUSE_ROOT/scripts/setup.sh"
"$ECLUSE_ROOT/scripts/check-format.sh"
ctest --test-dir "$ECLUSE_BUILD" --output-on-failure -j 2
"$ECLUSE_VENV/bin/python" -m pytest -q "$ECLUSE_ROOT/tests/python"
if [ "${ECLUSE_SKIP_SANITIZERS:-0}" != 1 ]; then
  "$ECLUSE_ROOT/scripts/sanitize.sh"
fi
