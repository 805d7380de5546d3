#!/usr/bin/env bash
# The main job: set up, run the example simulation on 4 ranks with time partitioning, with one
# dedicated core, and with one dedicated node (virtual nodes of one rank), and read every output
# back with h5py.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$ECLUSE_ROOT/scripts/setup.sh"
ranks=${RANKS:-4}
iterations=${ITERATIONS:-10}
demo_dir=${DEMO_DIR:-$ECLUSE_ROOT/out/demo}
rm -rf "$demo_dir"

run() {  # run NAME SERVERS ARCHITECTURE: the same simulation, the approach switched in the XML
  local name=$1 servers=$2 architecture=$3 dir="$demo_dir/$1"
  mkdir -p "$dir" && cd "$dir"
  sed "s|<dedicated cores=\"0\" nodes=\"0\"/>|$architecture|" \
    "$ECLUSE_ROOT/examples/simulation.xml" >simulation.xml
  echo "== $name: $ranks ranks, $architecture, output in $dir/out"
  local start=$(date +%s.%N)
  "$ECLUSE_MPIEXEC" -n "$ranks" "$ECLUSE_BUILD/examples/ecluse_example_simulation" \
    simulation.xml "$iterations"
  local end=$(date +%s.%N)
  local clients=$((ranks - servers))
  "$ECLUSE_VENV/bin/python" "$ECLUSE_ROOT/examples/read_output.py" out "$iterations" "$clients"
  printf '%s: %.2f s for the whole run, %s files\n' "$name" "$(echo "$end - $start" | bc)" \
    "$(find out -name '*.h5' | wc -l)"
}

run time-partitioning 0 '<dedicated cores="0" nodes="0"/>'
run dedicated-cores 1 "<dedicated cores=\"1\" nodes=\"0\"/><virtual-nodes ranks-per-node=\"$ranks\"/>"
run dedicated-nodes 1 '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>'
left=$(ls /dev/shm | grep -c '^ecluse-' || true)
echo "shared-memory segments left in /dev/shm: $left"
