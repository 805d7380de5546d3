#!/usr/bin/env bash
# The whole test suite: set-up, formatting gate, C++ unit and MPI tests (with the installed-
# package and set-up script tests), Python tests, then the C++ suite under ASan/UBSan (skip that
# stage with ECLUSE_SKIP_SANITIZERS=1), the DC, DN and shared-memory tests under
# ThreadSanitizer (scripts/tsan.sh; ECLUSE_SKIP_TSAN=1 skips it), then a 30 s libFuzzer run per
# target of the configuration reader and the expression parser (scripts/fuzz.sh;
# ECLUSE_SKIP_FUZZ=1 skips it).
#   --reduced   the MPICH job of CI: unit tests, MPI tests up to 4 ranks, the install test and
#               the examples of every language (no format gate, no sanitizers, no benchmarks).
# ECLUSE_MPI=mpich picks MPICH instead of Open MPI (scripts/env.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
reduced=0
[ "${1:-}" = --reduced ] && reduced=1
if [ $reduced = 1 ]; then
  ECLUSE_CMAKE_ARGS="${ECLUSE_CMAKE_ARGS:-} -DECLUSE_BUILD_BENCHMARKS=OFF" \
    "$ECLUSE_ROOT/scripts/setup.sh"
else
  "$ECLUSE_ROOT/scripts/setup.sh"
fi
source "$ECLUSE_ROOT/scripts/env.sh"  # the launcher exists now
echo "== tests with $ECLUSE_MPI ($ECLUSE_MPIEXEC), build in $ECLUSE_BUILD"
if [ $reduced = 1 ]; then
  ctest --test-dir "$ECLUSE_BUILD" --output-on-failure -j 2 -E '\.np(5|6|7|8)$'
  "$ECLUSE_VENV/bin/python" -m pytest -q "$ECLUSE_ROOT/tests/python/test_example.py" \
    "$ECLUSE_ROOT/tests/python/test_fortran.py" "$ECLUSE_ROOT/tests/python/test_binding.py" \
    "$ECLUSE_ROOT/tests/python/test_python_examples.py" \
    "$ECLUSE_ROOT/tests/python/test_job_signals.py" "$ECLUSE_ROOT/tests/python/test_full_disk.py"
  exit 0
fi
"$ECLUSE_ROOT/scripts/check-format.sh"
ctest --test-dir "$ECLUSE_BUILD" --output-on-failure -j 2
"$ECLUSE_VENV/bin/python" -m pytest -q "$ECLUSE_ROOT/tests/python"
if [ "${ECLUSE_SKIP_SANITIZERS:-0}" != 1 ]; then
  "$ECLUSE_ROOT/scripts/sanitize.sh"
fi
if [ "${ECLUSE_SKIP_TSAN:-0}" != 1 ]; then
  "$ECLUSE_ROOT/scripts/tsan.sh"
fi
if [ "${ECLUSE_SKIP_FUZZ:-0}" != 1 ]; then
  ECLUSE_FUZZ_SECONDS=${ECLUSE_FUZZ_SECONDS:-30} "$ECLUSE_ROOT/scripts/fuzz.sh"
fi
