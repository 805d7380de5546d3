#!/usr/bin/env bash
# Builds and runs the dedicated-core benchmarks side by side; writes bench/results/dc-<date>.json.
# Usage: bench/run.sh [--quick]   (ECLUSE_BUILD: build directory; ECLUSE_BENCH_QUIET_WAIT:
# seconds to wait for an idle machine before each benchmark, default 60)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/env.sh"

quick=0
[[ "${1:-}" == "--quick" ]] && quick=1
quiet_wait=${ECLUSE_BENCH_QUIET_WAIT:-60}
bench="$ECLUSE_BUILD/bench"
results="$ECLUSE_ROOT/bench/results"

build() {
  if [[ ! -f "$ECLUSE_BUILD/CMakeCache.txt" ]]; then
    cmake -S "$ECLUSE_ROOT" -B "$ECLUSE_BUILD" -G Ninja >&2
  fi
  cmake --build "$ECLUSE_BUILD" --target dc_write_cost dc_jitter dc_throughput -j 2 >&2
}

# Busy percentage of the whole machine over $1 seconds (all cores, from /proc/stat).
busy_percent() {
  local a b
  read -r -a a < <(head -1 /proc/stat)
  sleep "$1"
  read -r -a b < <(head -1 /proc/stat)
  local busy=0 idle=0 i
  for i in 1 2 3 6 7 8; do busy=$((busy + b[i] - a[i])); done
  for i in 4 5; do idle=$((idle + b[i] - a[i])); done
  echo $((100 * busy / (busy + idle > 0 ? busy + idle : 1)))
}

# Waits (at most $quiet_wait s) until the machine is idle: on 2 cores, someone else's build
# would be measured too. Prints the busy percentage seen last.
wait_quiet() {
  local waited=0 busy
  busy=$(busy_percent 1)
  while ((busy > 10 && waited < quiet_wait)); do
    echo "bench: machine ${busy}% busy, waiting for it to be idle..." >&2
    sleep 4
    waited=$((waited + 5))
    busy=$(busy_percent 1)
  done
  echo "$busy"
}

# Runs one benchmark: name, ranks, arguments. Its JSON goes to $tmp/<name>.json; the busy
# percentage of the machine just before it to $tmp/<name>.busy.
run() {
  local name=$1 ranks=$2
  shift 2
  rm -rf "${tmp:?}/out" && mkdir -p "$tmp/out" && sync
  wait_quiet >"$tmp/$name.busy"
  echo "bench: $name ($ranks ranks)" >&2
  if ! "$ECLUSE_MPIEXEC" -n "$ranks" "$@" >"$tmp/$name.json"; then
    echo "bench: $name FAILED; its result is left out" >&2
    : >"$tmp/$name.json"
  fi
}

machine_info() {
  local fs mpi commit
  fs=$(df --output=fstype "$tmp" | tail -1)
  mpi=$("$ECLUSE_MPIEXEC" --version 2>/dev/null | head -1 || true)
  commit=$(git -C "$ECLUSE_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  if [[ -n "$(git -C "$ECLUSE_ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
    commit="$commit+modified"
  fi
  python3 - "$fs" "$mpi" "$commit" "$tmp" <<'EOF'
import json, os, platform, sys
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "unknown")
mem = next((int(l.split()[1]) * 1024 for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0)
print(json.dumps({"nproc": os.cpu_count(), "cpu_model": model, "kernel": platform.release(),
                  "memory_bytes": mem, "output_filesystem": sys.argv[1], "output_directory": sys.argv[4],
                  "mpi": sys.argv[2], "commit": sys.argv[3],
                  "note": "2 cores: at most 2 busy processes per run (1 client + 1 dedicated core, or 2 TP clients)"}))
EOF
}

build
tmp=$(mktemp -d "$ECLUSE_BUILD/bench-tmp.XXXXXX")  # same file system as the source tree
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)

# Jitter at two output sizes per client and iteration (20 ms compute phases): 8 MiB, whose
# store fits in the compute phase here, and 32 MiB, whose store does not (see README).
if ((quick)); then
  wc_args=(--max-mib 16 --reps-scale 0.2)
  jitter_args=(--iterations 12) jitter_sizes=(8)
  tput_args=(--iterations 8 --reps 2 --fsync-reps 1)
else
  wc_args=() jitter_args=() jitter_sizes=(8 32) tput_args=()
fi

run write_cost 2 "$bench/dc_write_cost" --dir "$tmp/out" "${wc_args[@]}"
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

mkdir -p "$results"
out="$results/dc-$(date -u +%Y%m%d-%H%M%S).json"
machine_info >"$tmp/machine.json"
python3 "$ECLUSE_ROOT/bench/collect.py" "$tmp" "$(($(date +%s) - start))" "$quick" >"$out"
cat "$out"
python3 "$ECLUSE_ROOT/bench/collect.py" --table "$out"
echo "bench: results in $out" >&2
