#!/usr/bin/env bash
# The main job: set up, run the example simulation on 4 ranks with time partitioning, and read
# its output back with h5py.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$ECLUSE_ROOT/scripts/setup.sh"
ranks=${RANKS:-4}
iterations=${ITERATIONS:-10}
run_dir=${DEMO_DIR:-$ECLUSE_ROOT/out/demo}
rm -rf "$run_dir" && mkdir -p "$run_dir" && cd "$run_dir"
cp "$ECLUSE_ROOT/examples/simulation.xml" .
echo "demo: $ranks ranks, $iterations iterations, time partitioning, output in $run_dir/out"
"$ECLUSE_MPIEXEC" -n "$ranks" "$ECLUSE_BUILD/examples/ecluse_example_simulation" \
  simulation.xml "$iterations"
"$ECLUSE_VENV/bin/python" "$ECLUSE_ROOT/examples/read_output.py" out "$iterations" "$ranks"
