#!/usr/bin/env bash
# Accuracy of `ecluse` on this machine (issue 7, item 6): profile the proxy, run it under TP, DC
# and DN on the SAME global problem at a few output frequencies, validate the run reports
# against the predictions.
#
#   bench/accuracy/run_accuracy.sh OUTDIR
#
# Writes into OUTDIR: profile.json (+ profile.log), reports/*.json (one run report per run),
# runs.jsonl (the proxy's JSON line of every run), load.log (load and other processes' CPU use
# around every batch), validate.txt (ecluse validate's output), plots/*.png, table.md.
#
# At most 2 busy processes at a time (this VM has 2 CPUs); the configurations, each on the
# global grid GLOBAL (the proxy's --local is per rank, so it is chosen to keep that grid):
#   TP 1x1   1 client writing itself                      -n 1, --local GLOBAL
#   TP 1x2   2 clients writing themselves                 -n 2, --local NX/2 x NY x NZ
#   DC(1)    1 virtual node = 1 client + 1 dedicated core -n 2, ranks-per-node 2
#   DN(1:1)  1 client node + 1 dedicated node             -n 2, ranks-per-node 1
#
# Knobs (environment): GLOBAL (128x128x40), ITERATIONS (200), EVERY ("5 20 50"), REPEATS (3),
# PROFILE_ITERATIONS (ITERATIONS: the bandwidth runs then write as much as the runs), PROFILE_REPEATS (3), BUSY_MAX (0.3: other processes' CPUs above
# which a batch counts as noisy), WAIT_MAX (180 s waiting for a quiet machine before a batch),
# RETRIES (2 re-runs of a noisy batch), SCRATCH (a fresh directory under /tmp), STEPS
# ("profile runs validate": e.g. STEPS=profile re-profiles on a quieter machine, STEPS=validate
# only validates what OUTDIR holds).
set -euo pipefail

OUT=${1:?usage: run_accuracy.sh OUTDIR}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/env.sh
source "$HERE/../../scripts/env.sh"

GLOBAL=${GLOBAL:-128x128x40}
ITERATIONS=${ITERATIONS:-200}
EVERY=${EVERY:-"5 20 50"}
REPEATS=${REPEATS:-3}
PROFILE_ITERATIONS=${PROFILE_ITERATIONS:-$ITERATIONS}
PROFILE_REPEATS=${PROFILE_REPEATS:-3}
BUSY_MAX=${BUSY_MAX:-0.3}
WAIT_MAX=${WAIT_MAX:-180}
RETRIES=${RETRIES:-2}
STEPS=${STEPS:-"profile runs validate"}
step() { [[ " $STEPS " == *" $1 "* ]]; }

PROXY=$ECLUSE_BUILD/apps/proxy/ecluse_proxy
ECLUSE=$ECLUSE_VENV/bin/ecluse
[[ -x $PROXY ]] || { echo "run_accuracy: $PROXY not built (cmake --build build)" >&2; exit 2; }
[[ -x $ECLUSE ]] || { echo "run_accuracy: $ECLUSE missing (scripts/setup.sh)" >&2; exit 2; }

mkdir -p "$OUT/reports" "$OUT/plots"
OUT=$(cd "$OUT" && pwd)
SCRATCH=${SCRATCH:-$(mktemp -d /tmp/ecluse-accuracy.XXXXXX)}
mkdir -p "$SCRATCH"
trap 'rm -rf "$SCRATCH"' EXIT
touch "$OUT/load.log"
if step runs; then
  : >"$OUT/runs.jsonl"
  rm -f "$OUT"/reports/*.json
fi

IFS=x read -r NX NY NZ <<<"$GLOBAL"
HALF="$((NX / 2))x${NY}x${NZ}"   # MPI_Dims_create(2) = 2x1: x is split

# Other processes' CPU use, in CPUs, over a 2 s sample of /proc/stat (run while ours are not).
busy_cpus() {
  local a b
  a=$(awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
  sleep 2
  b=$(awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat)
  awk -v a="$a" -v b="$b" -v n="$(nproc)" 'BEGIN{split(a,x," "); split(b,y," ");
    printf "%.2f", (y[1]-x[1]) / (y[2]-x[2]) * n}'
}
load1() { cut -d' ' -f1 /proc/loadavg; }
noisy() { awk -v b="$1" -v m="$BUSY_MAX" 'BEGIN{exit !(b > m)}'; }

# Waits (at most WAIT_MAX s) for other processes to leave the CPUs; echoes their last use.
wait_quiet() {
  local waited=0 b
  b=$(busy_cpus)
  while noisy "$b" && ((waited < WAIT_MAX)); do
    sleep 8
    waited=$((waited + 10))
    b=$(busy_cpus)
  done
  echo "$b"
}

# --- 1. profile ------------------------------------------------------------------------------
if step profile; then
  b=$(wait_quiet)
  echo "profile: load $(load1), other processes ${b} CPUs before" | tee -a "$OUT/load.log"
  "$ECLUSE" profile -o "$OUT/profile.json" --cores 1,2 --nodes 1 --ranks-per-node 1 \
    --iterations "$PROFILE_ITERATIONS" --global "$GLOBAL" --repeats "$PROFILE_REPEATS" \
    --bandwidth --writers 1,2 --output-every 5 2>&1 | tee "$OUT/profile.log"
  echo "profile: other processes $(busy_cpus) CPUs after" | tee -a "$OUT/load.log"
fi

# --- 2. configurations -----------------------------------------------------------------------
# All three from proxy-tp.xml, only <architecture> changed (the checked-in DC/DN configurations
# use 2-rank virtual nodes and may change): DC = 1 client + 1 dedicated core per virtual node of
# 2 ranks, DN = virtual nodes of 1 rank, one of them dedicated; 64 MiB buffer in both.
CFG=$ECLUSE_BUILD/apps/proxy
TP_LINE='<dedicated cores="0" nodes="0"/>'
grep -q "$TP_LINE" "$CFG/proxy-tp.xml"
cp "$CFG/proxy-tp.xml" "$SCRATCH/tp.xml"
sed "s#$TP_LINE#<dedicated cores=\"1\" nodes=\"0\"/><buffer size=\"64MiB\"/><virtual-nodes ranks-per-node=\"2\"/>#" \
  "$CFG/proxy-tp.xml" >"$SCRATCH/dc.xml"
sed "s#$TP_LINE#<dedicated cores=\"0\" nodes=\"1\"/><buffer size=\"64MiB\"/><virtual-nodes ranks-per-node=\"1\"/>#" \
  "$CFG/proxy-tp.xml" >"$SCRATCH/dn.xml"
mkdir -p "$OUT/configs"
cp "$SCRATCH"/{tp,dc,dn}.xml "$OUT/configs/"

# name ranks config local
CONFIGS=("tp1 1 tp.xml $GLOBAL" "tp2 2 tp.xml $HALF" "dc 2 dc.xml $GLOBAL" "dn 2 dn.xml $GLOBAL")

run_one() {  # name ranks config local every rep
  local name=$1 ranks=$2 cfg=$3 local=$4 every=$5 rep=$6
  local dir="$SCRATCH/run" report="$OUT/reports/$name-e$every-r$rep.json"
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && ECLUSE_REPORT="$report" "$ECLUSE_MPIEXEC" -n "$ranks" "$PROXY" \
    --config "$SCRATCH/$cfg" --local "$local" --iterations "$ITERATIONS" --output-every "$every" \
    >stdout.txt 2>stderr.txt) || { cat "$dir/stderr.txt" >&2; return 1; }
  grep '^{' "$dir/stdout.txt" | tail -1 |
    sed "s#^{#{\"run\": \"$name-e$every-r$rep\", #" >>"$OUT/runs.jsonl"
  rm -rf "$dir"
}

# --- 3. runs: one batch = the 4 configurations at one output interval, one repetition ----------
step runs && for rep in $(seq 1 "$REPEATS"); do
  for every in $EVERY; do
    for attempt in $(seq 0 "$RETRIES"); do
      before=$(wait_quiet)
      load_before=$(load1)
      for c in "${CONFIGS[@]}"; do
        # shellcheck disable=SC2086
        run_one $c "$every" "$rep"
      done
      after=$(busy_cpus)
      line="batch every=$every rep=$rep attempt=$attempt: load $load_before, other processes $before CPUs before, $after after"
      if { noisy "$before" || noisy "$after"; } && ((attempt < RETRIES)); then
        echo "$line: noisy, re-run" | tee -a "$OUT/load.log"
        continue
      fi
      noisy "$before" || noisy "$after" && line="$line: noisy (kept, retries exhausted)"
      echo "$line" | tee -a "$OUT/load.log"
      break
    done
  done
done

# --- 4. validate -------------------------------------------------------------------------------
step validate || exit 0
"$ECLUSE" validate "$OUT"/reports/*.json --profile "$OUT/profile.json" --plots "$OUT/plots" |
  tee "$OUT/validate.txt"
"$ECLUSE_VENV/bin/python" "$HERE/table.py" "$OUT/profile.json" "$OUT"/reports/*.json >"$OUT/table.md"
cat "$OUT/table.md"
