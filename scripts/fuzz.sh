#!/usr/bin/env bash
# Fuzzes the configuration reader and the expression parser with libFuzzer under ASan+UBSan
# (clang, build-fuzz/). ECLUSE_FUZZ_SECONDS per target (default 60: CI's short fixed-time run;
# run hours for a real campaign). Seeds: tests/configs/{valid,broken}, tests/fuzz/corpus; new
# inputs go to build-fuzz/corpus (copy interesting ones to tests/fuzz/corpus), crashes to
# build-fuzz/crashes and fail the run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
seconds=${ECLUSE_FUZZ_SECONDS:-60}
build=${ECLUSE_FUZZ_BUILD:-$ECLUSE_ROOT/build-fuzz}
if ! command -v clang++ >/dev/null; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q clang >/dev/null
fi
mapfile -t mpi_args < <(ecluse_cmake_mpi_args)
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S "$ECLUSE_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${mpi_args[@]}" \
  -DECLUSE_BUILD_FUZZERS=ON -DECLUSE_BUILD_TESTS=OFF -DECLUSE_BUILD_EXAMPLES=OFF \
  -DECLUSE_BUILD_BENCHMARKS=OFF -DECLUSE_BUILD_FORTRAN=OFF -DECLUSE_BUILD_PYTHON=OFF \
  -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS="$sanitize -fsanitize=fuzzer-no-link" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" -DCMAKE_SHARED_LINKER_FLAGS="$sanitize" >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzz_config fuzz_expression

fuzz() {  # fuzz TARGET SEED_DIR...: a fixed-time run; exit status non-zero on any finding
  local target=$1 corpus=$build/corpus/$1 crashes=$build/crashes/$1/
  shift
  mkdir -p "$corpus" "$crashes"
  echo "== fuzzing $target for $seconds s"
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
    "$build/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$crashes" \
    -dict="$ECLUSE_ROOT/tests/fuzz/xml.dict" "$corpus" "$@" 2>&1 | tail -n 12
}
fuzz fuzz_config "$ECLUSE_ROOT/tests/configs/valid" "$ECLUSE_ROOT/tests/configs/broken" \
  "$ECLUSE_ROOT/tests/fuzz/corpus/config"
fuzz fuzz_expression "$ECLUSE_ROOT/tests/fuzz/corpus/expression"
