#!/usr/bin/env bash
# The C++ suite again under AddressSanitizer and UndefinedBehaviorSanitizer (leak checks off:
# MPI libraries keep memory until exit on purpose).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
build=${ECLUSE_ASAN_BUILD:-$ECLUSE_ROOT/build-asan}
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
mapfile -t mpi_args < <(ecluse_cmake_mpi_args)
# The bindings are tested by pytest against the main build, not here.
cmake -S "$ECLUSE_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DECLUSE_BUILD_BENCHMARKS=OFF -DECLUSE_BUILD_FORTRAN=OFF -DECLUSE_BUILD_PYTHON=OFF \
  "${mpi_args[@]}" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$build" -j "$(nproc)"
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$build" --output-on-failure -j 2 -E '^install\.' 
