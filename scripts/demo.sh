#!/usr/bin/env bash
# The main job: set up; check the example simulation under TP, DC and DN (every value read back);
# the same under DC with in-situ work on the dedicated core (zfp, XDMF, a PNG from Python);
# compare TP, DC and DN on the CM1-like proxy (table, report, plots); print the advisor's
# prediction beside the measurements. About 2 minutes on 2 cores.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
"$ECLUSE_ROOT/scripts/setup.sh"
source "$ECLUSE_ROOT/scripts/env.sh"  # the launcher exists now
ranks=${RANKS:-4}
iterations=${ITERATIONS:-10}
demo_dir=${DEMO_DIR:-$ECLUSE_ROOT/out/demo}
rm -rf "$demo_dir"

run() {  # run NAME SERVERS ARCHITECTURE [LANGUAGE]: the same simulation, the approach switched
  local name=$1 servers=$2 architecture=$3 language=${4:-c} dir="$demo_dir/$1"
  local xml=$ECLUSE_ROOT/examples/simulation.xml program
  case "$language" in
    c) program=("$ECLUSE_BUILD/examples/ecluse_example_simulation") ;;
    fortran) xml=$ECLUSE_ROOT/examples/fortran/simulation.xml
      program=("$ECLUSE_BUILD/examples/fortran/ecluse_fortran_simulation") ;;
    python) program=("$ECLUSE_VENV/bin/python" "$ECLUSE_ROOT/examples/python/simulation.py") ;;
  esac
  mkdir -p "$dir" && cd "$dir"
  sed "s|<dedicated cores=\"0\" nodes=\"0\"/>|$architecture|" "$xml" >simulation.xml
  echo "== $name ($language): $ranks ranks, $architecture, output in $dir/out"
  local start=$(date +%s.%N)
  "$ECLUSE_MPIEXEC" -n "$ranks" "${program[@]}" simulation.xml "$iterations"
  local end=$(date +%s.%N)
  local clients=$((ranks - servers))
  "$ECLUSE_VENV/bin/python" "$ECLUSE_ROOT/examples/read_output.py" out "$iterations" "$clients"
  printf '%s: %.2f s for the whole run, %s files\n' "$name" "$(echo "$end - $start" | bc)" \
    "$(find out -name '*.h5' | wc -l)"
}

echo "== 1/3: the example simulation under each approach, every value read back (C, then Fortran"
echo "        and Python with dedicated cores)"
dc="<dedicated cores=\"1\" nodes=\"0\"/><virtual-nodes ranks-per-node=\"$ranks\"/>"
run time-partitioning 0 '<dedicated cores="0" nodes="0"/>'
run dedicated-cores 1 "$dc"
run dedicated-nodes 1 '<dedicated cores="0" nodes="1"/><virtual-nodes ranks-per-node="1"/>'
echo
echo "== the same example written in Fortran (module ecluse) and Python (ecluse.Session), DC"
run dedicated-cores-fortran 1 "$dc" fortran
run dedicated-cores-python 1 "$dc" python
left=$(ls /dev/shm | grep -c '^ecluse-' || true)
echo "shared-memory segments left in /dev/shm: $left"

echo
echo "== 2/3: in situ on the dedicated core, beside the plain DC run above: zfp compression,"
echo "        XDMF for ParaView and a PNG slice drawn by a Python script on the server"
insitu_dir=$demo_dir/dedicated-cores-insitu
mkdir -p "$insitu_dir" && cd "$insitu_dir"
cp "$ECLUSE_ROOT/examples/insitu/demo.xml" "$ECLUSE_ROOT/examples/python/insitu/slice_png.py" .
sed -i "s|ranks-per-node=\"4\"|ranks-per-node=\"$ranks\"|" demo.xml
start=$(date +%s.%N)
VIRTUAL_ENV=$ECLUSE_VENV "$ECLUSE_MPIEXEC" -n "$ranks" \
  "$ECLUSE_BUILD/examples/ecluse_example_simulation" demo.xml "$iterations" | grep -v '^slice:'
end=$(date +%s.%N)
printf 'dedicated-cores-insitu: %.2f s for the whole run\n' "$(echo "$end - $start" | bc)"
"$ECLUSE_VENV/bin/python" "$ECLUSE_ROOT/examples/insitu/check_insitu.py" "$insitu_dir" \
  "$demo_dir/dedicated-cores" "$iterations" "$((ranks - 1))" 0.01

echo
echo "== 3/3: comparing the approaches on the CM1-like proxy"
cd "$ECLUSE_ROOT"
"$ECLUSE_VENV/bin/python" "$ECLUSE_ROOT/bench/harness/demo.py" "$demo_dir/compare"
