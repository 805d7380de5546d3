#!/usr/bin/env bash
# Builds and runs the benchmarks side by side; writes bench/results/<suite>-<date>.json per suite,
# then prints the performance table (issue 18's figures, goal and before/after beside each).
# Usage: bench/run.sh [--quick] [--suite dc|approaches|adios2|perf|all]   (default all = perf:
# every suite the table needs; ECLUSE_BUILD: build directory; ECLUSE_BENCH_QUIET_WAIT: seconds to
# wait for an idle machine before each benchmark, default 60; ECLUSE_BENCH_NOTE: a note on the
# machine, kept in the results)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/env.sh"

quick=0 suite=all
while (($#)); do
  case $1 in
    --quick) quick=1 ;;
    --suite) suite=$2 && shift ;;
    *) echo "usage: bench/run.sh [--quick] [--suite dc|approaches|adios2|perf|all]" >&2 && exit 2 ;;
  esac
  shift
done
case $suite in
  dc | approaches | adios2 | all) ;;
  perf) suite=all ;;
  *) echo "bench: unknown suite '$suite'" >&2 && exit 2 ;;
esac
quiet_wait=${ECLUSE_BENCH_QUIET_WAIT:-60}
bench="$ECLUSE_BUILD/bench"
results="$ECLUSE_ROOT/bench/results"

build() {
  if [[ ! -f "$ECLUSE_BUILD/CMakeCache.txt" ]]; then
    cmake -S "$ECLUSE_ROOT" -B "$ECLUSE_BUILD" -G Ninja >&2
  fi
  cmake --build "$ECLUSE_BUILD" --target dc_write_cost dc_jitter dc_throughput approach_compare \
    dn_throughput small_blocks -j 2 >&2
}

source "$ECLUSE_ROOT/bench/quiet.sh"  # busy_percent, wait_quiet

# Runs one benchmark: name, ranks, arguments. Its JSON goes to $tmp/<name>.json; the busy
# percentage of the machine just before it to $tmp/<name>.busy. It runs in $tmp, so that run
# reports Ecluse writes at finalize ({simulation}-report.json by default) stay out of the tree.
run() {
  local name=$1 ranks=$2
  shift 2
  rm -rf "${tmp:?}/out" && rm -f "$tmp"/*-report.json && mkdir -p "$tmp/out" && sync
  wait_quiet >"$tmp/$name.busy"
  echo "bench: $name ($ranks ranks)" >&2
  if ! (cd "$tmp" && "$ECLUSE_MPIEXEC" -n "$ranks" "$@") >"$tmp/$name.json"; then
    echo "bench: $name FAILED; its result is left out" >&2
    : >"$tmp/$name.json"
  fi
  # Ecluse's own run report of the last session, in the output directory (approach_compare puts
  # it there) or else in the working directory (the default): collect.py takes the per-iteration
  # store times and the servers' idle CPU from it.
  local report
  for report in "$tmp"/*-report.json "$tmp"/out/*-report.json; do
    [[ -f $report ]] && cp "$report" "$tmp/$name.report"
  done
  return 0
}

machine_info() {
  local fs mpi commit
  fs=$(df --output=fstype "$tmp" | tail -1)
  mpi=$("$ECLUSE_MPIEXEC" --version 2>/dev/null | head -1 || true)
  commit=$(git -C "$ECLUSE_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [[ -n "$(git -C "$ECLUSE_ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
    commit="$commit+modified"
  fi
  python3 - "$fs" "$mpi" "$commit" "$tmp" "${ECLUSE_BENCH_NOTE:-}" "$page_reporting_note" <<'EOF'
import json, os, platform, sys
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
mem = next((int(l.split()[1]) * 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
osname = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release") if l.startswith("PRETTY_NAME=")), "unknown")
print(json.dumps({"nproc": os.cpu_count(), "cpu_model": model, "os": osname, "kernel": platform.release(),
                  "memory_bytes": mem, "output_filesystem": sys.argv[1], "output_directory": sys.argv[4],
                  "mpi": sys.argv[2], "commit": sys.argv[3],
                  "note": "2 cores: at most 2 busy processes per timed run (1 client + 1 server, or TP clients); "
                          "runs with more ranks are marked oversubscribed and prove behaviour, not speed",
                  "operator_note": sys.argv[5] or None, "free_page_reporting": sys.argv[6]}))
EOF
}

# The dedicated-core suite: write cost, jitter, throughput.
dc_suite() {
  # Jitter at two output sizes per client and iteration (20 ms compute phases): 8 MiB, whose
  # store fits in the compute phase here, and 32 MiB, whose store does not (see README).
  local wc_args jitter_args jitter_sizes tput_args mib fsync config mode ranks name
  if ((quick)); then
    wc_args=(--max-mib 64 --reps-scale 0.2)  # 64 MiB: the end_iteration figure
    jitter_args=(--iterations 12) jitter_sizes=(8)
    tput_args=(--iterations 8 --reps 2 --fsync-reps 1)
  else
    wc_args=() jitter_args=() jitter_sizes=(8 32) tput_args=()
  fi
  run write_cost 2 "$bench/dc_write_cost" --dir "$tmp/out" "${wc_args[@]}"
  # A warm-up run, not recorded: the first run after write_cost (0.5-1 GB of buffers and files
  # created and deleted) costs the dedicated core 1.5-2.5% of CPU between outputs instead of
  # 0.2-0.3% (kernel work charged to its wake-ups; seen 2026-11-25, cause not pinned down).
  run jitter_warmup 2 "$bench/dc_jitter" --mode dc --dir "$tmp/out" --mib 8 --iterations 12
  for mib in "${jitter_sizes[@]}"; do
    for fsync in "" --fsync; do
      for config in "dc 2" "tp 1" "tp 2"; do
        read -r mode ranks <<<"$config"
        name="jitter_${mode}${ranks}_${mib}MiB${fsync:+_fsync}"
        run "$name" "$ranks" "$bench/dc_jitter" --mode "$mode" --dir "$tmp/out" --mib "$mib" \
          $fsync "${jitter_args[@]}"
      done
    done
  done
  run throughput 2 "$bench/dc_throughput" --dir "$tmp/out" "${tput_args[@]}"
}

# The three approaches side by side (one mpiexec each, same workload): TP with 1 rank (the same
# single writer and data as DC and DN, whose second rank is the server), DC and DN with 2 ranks;
# the order of the approaches alternates from repetition to repetition. Then the DN server's
# throughput against a raw write, and DN with 7 and 15 clients per server (oversubscribed).
approaches_suite() {
  local sizes reps iterations tput_args ratio_args small_args rep order approach mib ranks clients k
  if ((quick)); then
    sizes=(1 16) reps=1 iterations=8 tput_args=(--iterations 8 --reps 2 --fsync-reps 1)
    ratio_args=(--iterations 6) small_args=(--quick)
  else
    sizes=(1 16 64) reps=2 iterations=16 tput_args=() ratio_args=(--iterations 10) small_args=()
  fi
  for mib in "${sizes[@]}"; do
    for ((rep = 0; rep < reps; rep++)); do
      order=(tp dc dn)
      ((rep % 2)) && order=(dn dc tp)
      for approach in "${order[@]}"; do
        ranks=2
        [[ $approach == tp ]] && ranks=1
        run "compare_${approach}_${mib}MiB_r${rep}" "$ranks" "$bench/approach_compare" \
          --approach "$approach" --dir "$tmp/out" --mib "$mib" --iterations "$iterations" \
          --compute-ms 40 --buffer-iterations 3
      done
    done
  done
  run dn_throughput 2 "$bench/dn_throughput" --dir "$tmp/out" "${tput_args[@]}"
  run small_blocks 2 "$bench/small_blocks" --dir "$tmp/out" "${small_args[@]}"
  for ranks in 8 16; do
    clients=$((ranks - 1))
    for k in 1 2 8; do
      run "ratio_${clients}to1_buffer${k}x" "$ranks" "$bench/approach_compare" --approach dn \
        --dir "$tmp/out" --mib 4 --compute-ms 20 --buffer-iterations "$k" --ranks-per-node 1 \
        "${ratio_args[@]}"
    done
  done
}

# Runs one suite in a fresh temporary directory and gathers its results file.
run_suite() {
  local name=$1 start out
  tmp=$(mktemp -d "$ECLUSE_BUILD/bench-tmp.XXXXXX")  # same file system as the source tree
  start=$(date +%s)
  "${name}_suite"
  mkdir -p "$results"
  out="$results/$name-$(date -u +%Y%m%d-%H%M%S).json"
  machine_info >"$tmp/machine.json"
  python3 "$ECLUSE_ROOT/bench/collect.py" "$tmp" "$(($(date +%s) - start))" "$quick" "$name" >"$out"
  rm -rf "$tmp"
  cat "$out"
  python3 "$ECLUSE_ROOT/bench/collect.py" --table "$out"
  echo
  python3 "$ECLUSE_ROOT/bench/collect.py" --before-after "$out"
  written+=("$out")
  echo "bench: results in $out" >&2
}

# ADIOS2 with MPI beside Ecluse DC and DN: bench/adios2.sh writes
# bench/results/adios2-<date>.json. It runs only when its ADIOS2 build is present (the stamp
# scripts/build-adios2.sh leaves in $ADIOS2_PREFIX, or in its cache): a run never downloads
# and builds ADIOS2 by itself. Otherwise the performance table takes the newest committed
# adios2-*.json.
adios2_available() {
  local stamps=("${ADIOS2_PREFIX:-/nonexistent}/ecluse-build.json"
    "${XDG_CACHE_HOME:-$HOME/.cache}"/ecluse/adios2-*-"${ECLUSE_MPI:-openmpi}"/ecluse-build.json)
  [[ -x "$ECLUSE_ROOT/bench/adios2.sh" ]] || return 1
  local stamp
  for stamp in "${stamps[@]}"; do [[ -f $stamp ]] && return 0; done
  return 1
}

adios2_suite() {
  local out args=()
  if ! adios2_available; then
    echo "bench: no MPI-enabled ADIOS2 build (scripts/build-adios2.sh); the performance table" \
      "uses the newest committed bench/results/adios2-*.json" >&2
    return 0
  fi
  ((quick)) && args=(--iterations 12 --reps 1)
  out="$results/adios2-$(date -u +%Y%m%d-%H%M%S).json"
  if "$ECLUSE_ROOT/bench/adios2.sh" --out "$out" "${args[@]}"; then
    written+=("$out")
    python3 "$ECLUSE_ROOT/bench/collect.py" --before-after "$out"
  else
    echo "bench: adios2.sh FAILED; its result is left out" >&2
  fi
  return 0
}

build
tmp=""
written=()
trap '[[ -n "$tmp" ]] && rm -rf "$tmp"; restore_page_reporting' EXIT
pause_page_reporting
[[ $suite == dc || $suite == all ]] && run_suite dc
[[ $suite == approaches || $suite == all ]] && run_suite approaches
[[ $suite == adios2 || $suite == all ]] && adios2_suite
echo
echo "## Performance (issue 18): every figure with its goal, before and after"
echo
python3 "$ECLUSE_ROOT/bench/collect.py" --performance "${written[@]}"
exit 0
