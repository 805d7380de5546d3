#!/usr/bin/env bash
# The dedicated-core, dedicated-node and shared-memory tests under ThreadSanitizer, in build-tsan:
# the energy ticker thread against the API calls, and the threads of the shared-memory tests
# (TSan sees the threads of one process, not the processes sharing a segment). Only the library
# and these tests are built, and the MPI tests run at 2 to 4 ranks, to keep the job short (about
# 45 s of tests). MPI libraries are not instrumented: scripts/tsan.supp says what may be
# suppressed there, and why (nothing today).
#   ECLUSE_TSAN_BUILD   build directory (default build-tsan)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
build=${ECLUSE_TSAN_BUILD:-$ECLUSE_ROOT/build-tsan}
flags="-fsanitize=thread -fno-omit-frame-pointer"
mapfile -t mpi_args < <(ecluse_cmake_mpi_args)
cmake -S "$ECLUSE_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DECLUSE_BUILD_BENCHMARKS=OFF -DECLUSE_BUILD_FORTRAN=OFF -DECLUSE_BUILD_PYTHON=OFF \
  -DECLUSE_BUILD_EXAMPLES=OFF "${mpi_args[@]}" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" >/dev/null
targets=(api_dc api_dn dc_signals shm_segment shm_event_queue shm_allocators
  shm_partitioned_allocator shm_allocator_processes shm_idle_wake)
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
# halt_on_error: a race fails its test at once; exitcode 66 marks a TSan report in ctest's log.
TSAN_OPTIONS="suppressions=$ECLUSE_ROOT/scripts/tsan.supp:halt_on_error=1:exitcode=66"
export TSAN_OPTIONS="$TSAN_OPTIONS:second_deadlock_stack=1"
ctest --test-dir "$build" --output-on-failure -j 2 \
  -R '^((api_dc|api_dn|dc_signals)\.np[234]|shm_[a-z_]+)$'
