#!/usr/bin/env bash
# ADIOS2 side by side with Ecluse DC and DN (issue 18): builds an MPI-enabled ADIOS2
# (scripts/build-adios2.sh, cached), configures the build with it, then runs the same workload
# (per client and iteration a compute phase, then one block of doubles) one mpiexec per approach,
# the order reversed from repetition to repetition, and writes bench/results/adios2-<date>.json
# (bench/adios2_summary.py). About 2 minutes after the builds on 2 idle cores.
#
#   bench/adios2.sh [--mib "16"] [--iterations 32] [--compute-ms 40] [--reps 2] [--out FILE]
#
# Environment: ECLUSE_MPI (openmpi|mpich), ECLUSE_BUILD (build directory), ECLUSE_BENCH_QUIET_WAIT
# (seconds to wait for an idle machine before each run, default 60), ECLUSE_BENCH_NOTE (kept in
# the results), ADIOS2_VERSION / ADIOS2_PREFIX (scripts/build-adios2.sh).
#
# Two groups, at most 2 busy processes each (the machine has 2 cores):
#   one_client:  none (1 rank: the run without output), dc and dn (approach_compare, 2 ranks:
#                1 client + its server), adios2-bp5-async and adios2-bp5-sync (1 rank; the
#                second core is free for ADIOS2's write thread), hdf5-fpp and hdf5-collective
#                (1 rank): the same client, bytes per iteration and compute phase;
#   two_clients: none, adios2-bp5-aggregation (NumAggregators=1: one writer for both ranks),
#                adios2-bp5-async, hdf5-fpp, hdf5-collective, 2 ranks that all compute and write
#                (same bytes per rank, twice the bytes per iteration; aggregation and collective
#                writes need at least 2 writers).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/env.sh"

# The exact command, for the results (with the environment that changes what is measured).
command_line="ECLUSE_MPI=$ECLUSE_MPI ECLUSE_BENCH_QUIET_WAIT=${ECLUSE_BENCH_QUIET_WAIT:-60} bench/adios2.sh$(printf ' %q' "$@")"
sizes=16 iterations=32 compute_ms=40 reps=2 out=""
while (($#)); do
  case $1 in
    --mib) sizes=$2 && shift ;;
    --iterations) iterations=$2 && shift ;;
    --compute-ms) compute_ms=$2 && shift ;;
    --reps) reps=$2 && shift ;;
    --out) out=$2 && shift ;;
    *)
      echo "usage: bench/adios2.sh [--mib \"16 64\"] [--iterations N] [--compute-ms MS] [--reps N] [--out FILE]" >&2
      exit 2
      ;;
  esac
  shift
done
quiet_wait=${ECLUSE_BENCH_QUIET_WAIT:-60}
# No binding of ranks to cores: Open MPI binds a 1-rank job to one core by default, and then
# ADIOS2's write thread (AsyncWrite) shares the client's core instead of using the free one (the
# compute phase doubled in a bound run). Every run of this comparison is unbound; MPICH's Hydra
# does not bind by default and ignores this variable.
export OMPI_MCA_hwloc_base_binding_policy=${OMPI_MCA_hwloc_base_binding_policy:-none}
out=${out:-$ECLUSE_ROOT/bench/results/adios2-$(date -u +%Y%m%d-%H%M%S).json}

# 1. ADIOS2 (built once, then cached) and the two programs.
build_start=$(date +%s)
prefix=$("$ECLUSE_ROOT/scripts/build-adios2.sh")
if [[ ! -f "$ECLUSE_BUILD/CMakeCache.txt" ]]; then
  cmake -S "$ECLUSE_ROOT" -B "$ECLUSE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    $(ecluse_cmake_mpi_args | tr '\n' ' ') -DCMAKE_PREFIX_PATH="$prefix" >&2
else
  cmake "$ECLUSE_BUILD" -DCMAKE_PREFIX_PATH="$prefix" >&2
fi
cmake --build "$ECLUSE_BUILD" --target approach_compare adios2_compare -j 2 >&2
echo "bench: ADIOS2 and the programs ready in $(($(date +%s) - build_start)) s" >&2
bench=$ECLUSE_BUILD/bench

tmp=$(mktemp -d "$ECLUSE_BUILD/adios2-bench.XXXXXX")
source "$ECLUSE_ROOT/bench/quiet.sh"  # busy_percent, wait_quiet, pause_page_reporting
trap 'rm -rf "$tmp"; restore_page_reporting' EXIT
pause_page_reporting  # under bench/run.sh: paused already, restored by run.sh

# One run: name, ranks, program and arguments; JSON to $tmp/<name>.json, busy % to .busy.
run() {
  local name=$1 ranks=$2
  shift 2
  rm -rf "${tmp:?}/out" && mkdir -p "$tmp/out" && sync
  wait_quiet >"$tmp/$name.busy"
  echo "bench: $name ($ranks ranks)" >&2
  if ! (cd "$tmp" && "$ECLUSE_MPIEXEC" -n "$ranks" "$@") >"$tmp/$name.json"; then
    echo "bench: $name FAILED; its result is left out" >&2
    : >"$tmp/$name.json"
  fi
}

# The compute phase of every run: calibrated once, by the first run without output.
work=0
common() {
  echo --dir "$tmp/out" --mib "$1" --iterations "$iterations" --compute-ms "$compute_ms" \
    --work-units "$work"
}

# none-produce and dc-zero-copy: the compute phase also writes the field (--produce), into the
# program's own array or, with zero copy, into the room ecluse_alloc gives in the shared buffer.
one_client=(none dc dn adios2-bp5-async adios2-bp5-sync hdf5-fpp hdf5-collective none-produce
  dc-zero-copy)
two_clients=(none adios2-bp5-aggregation adios2-bp5-async hdf5-fpp hdf5-collective)

run_one() {  # group, approach, size, repetition
  local group=$1 approach=$2 mib=$3 rep=$4 ranks=1 name
  name="${group}__${approach}__${mib}MiB__r${rep}"
  [[ $group == two_clients ]] && ranks=2
  case $approach in
    dc | dn)
      # shellcheck disable=SC2046
      run "$name" 2 "$bench/approach_compare" --approach "$approach" --memcpy off $(common "$mib")
      ;;
    dc-zero-copy)
      # shellcheck disable=SC2046
      run "$name" 2 "$bench/approach_compare" --approach dc --memcpy off --zero-copy \
        $(common "$mib")
      ;;
    none-produce)
      # shellcheck disable=SC2046
      run "$name" "$ranks" "$bench/adios2_compare" --approach none --produce $(common "$mib")
      ;;
    *)
      # shellcheck disable=SC2046
      run "$name" "$ranks" "$bench/adios2_compare" --approach "$approach" $(common "$mib")
      ;;
  esac
  if ((work == 0)) && [[ -s "$tmp/$name.json" ]]; then
    work=$(python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import adios2_summary as s, pathlib
print(int(s.last_json(pathlib.Path(sys.argv[2]))["work_units"]))' "$ECLUSE_ROOT/bench" "$tmp/$name.json")
  fi
}

for mib in $sizes; do
  for ((rep = 0; rep < reps; rep++)); do
    for group in one_client two_clients; do
      declare -n list=$group
      order=("${list[@]}")
      if ((rep % 2 == 1)); then  # reversed, "none" still first (it calibrates the first time)
        order=(none)
        for ((k = ${#list[@]} - 1; k > 0; k--)); do order+=("${list[k]}"); done
      fi
      for approach in "${order[@]}"; do run_one "$group" "$approach" "$mib" "$rep"; done
      unset -n list
    done
  done
done

python3 "$ECLUSE_ROOT/bench/adios2_summary.py" --runs "$tmp" --out "$out" \
  --command "$command_line" --adios2-prefix "$prefix" --mpiexec "$ECLUSE_MPIEXEC" \
  --note "${ECLUSE_BENCH_NOTE:-}" --quiet-wait "$quiet_wait"
