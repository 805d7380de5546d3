#!/usr/bin/env bash
# Accuracy of `ecluse` on this machine (issues 7 and 15): profile each application, run it under
# TP, DC and DN on the SAME global problem at a few output frequencies, validate the run reports
# against the predictions.
#
#   bench/accuracy/run_accuracy.sh OUTDIR
#
# APP (proxy) picks the application: proxy (the CM1-like proxy), vpic, vorpal (the two I/O
# kernels, apps/README.md: they write every step), heat (the example simulation, examples/: it
# writes every iteration). The proxy's results go straight into OUTDIR (as before issue 15), the
# others into OUTDIR/APP. Writes: profile.json (+ profile.log), reports/*.json (one run report
# per run), runs.jsonl (the program's JSON line of every run), load.log (load and other
# processes' CPU use around every batch), validate.txt (ecluse validate's output), plots/*.png,
# table.md.
#
# At most 2 busy processes at a time (this VM has 2 CPUs); the configurations, each on one
# global problem (the proxy's --local is per rank, so it is chosen to keep the grid GLOBAL):
#   TP 1x1   1 client writing itself                      -n 1, --local GLOBAL
#   TP 1x2   2 clients writing themselves                 -n 2, --local NX/2 x NY x NZ
#   DC(1)    1 virtual node = 1 client + 1 dedicated core -n 2, ranks-per-node 2
#   DN(1:1)  1 client node + 1 dedicated node             -n 2, ranks-per-node 1
# The kernels' sizes are per rank, so they run the 1-client configurations only (TP 1x1, DC(1),
# DN(1:1)); heat keeps its 64x48 grid whatever the ranks and runs all four.
#
# Knobs (environment): GLOBAL (128x128x40), ITERATIONS (200), EVERY ("5 20 50"), REPEATS (3),
# PROFILE_ITERATIONS (ITERATIONS: the bandwidth runs then write as much as the runs), PROFILE_REPEATS (3), BUSY_MAX (0.3: other processes' CPUs above
# which a batch counts as noisy), WAIT_MAX (180 s waiting for a quiet machine before a batch),
# RETRIES (2 re-runs of a noisy batch), SCRATCH (a fresh directory under /tmp), STEPS
# ("profile runs validate": e.g. STEPS=profile re-profiles on a quieter machine, STEPS=validate
# only validates what OUTDIR holds).
set -euo pipefail

OUT=${1:?usage: run_accuracy.sh OUTDIR}
APP=${APP:-proxy}
[[ $APP == proxy ]] || OUT=$OUT/$APP
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

ECLUSE=$ECLUSE_VENV/bin/ecluse
A=$ECLUSE_BUILD/apps
PARTICLES=${PARTICLES:-262144}        # vpic: particles of the one client (8 MB per step)
BLOCK=${BLOCK:-64x64x40}              # vorpal: block of the one client (3.9 MB per step)
case $APP in   # BIN, its TP configuration, the arguments after --config (@L@: per-rank size)
  proxy) BIN=$A/proxy/ecluse_proxy; CFG_TP=$A/proxy/proxy-tp.xml
         ARGS='--local @L@ --iterations @I@ --output-every @E@' ;;
  vpic) BIN=$A/kernels/ecluse_vpic_io; CFG_TP=$A/kernels/vpic-io-tp.xml
        ARGS="--particles $PARTICLES --steps @I@"; EVERY=1 ;;
  vorpal) BIN=$A/kernels/ecluse_vorpal_io; CFG_TP=$A/kernels/vorpal-io-tp.xml
          ARGS="--block $BLOCK --steps @I@"; EVERY=1 ;;
  heat) BIN=$ECLUSE_BUILD/examples/ecluse_example_simulation
        CFG_TP=$ECLUSE_ROOT/examples/simulation.xml; ARGS='@I@'; EVERY=1 ;;
  *) echo "run_accuracy: APP must be proxy, vpic, vorpal or heat" >&2; exit 2 ;;
esac
[[ -x $BIN ]] || { echo "run_accuracy: $BIN not built (cmake --build build)" >&2; exit 2; }
[[ -x $ECLUSE ]] || { echo "run_accuracy: $ECLUSE missing (scripts/setup.sh)" >&2; exit 2; }

mkdir -p "$OUT/reports" "$OUT/plots"
OUT=$(cd "$OUT" && pwd)
SCRATCH=${SCRATCH:-$(mktemp -d /tmp/ecluse-accuracy.XXXXXX)}
mkdir -p "$SCRATCH"
# shellcheck source=../quiet.sh
source "$HERE/../quiet.sh"  # pause_page_reporting: the profile's runs and the validated runs alike
trap 'rm -rf "$SCRATCH"; restore_page_reporting' EXIT
pause_page_reporting
touch "$OUT/load.log"
if step runs; then
  : >"$OUT/runs.jsonl"
  rm -f "$OUT"/reports/*.json
fi

# The program's argument list for one run: config, per-rank size, iterations, output interval.
app_args() {  # config local every
  local a=${ARGS//@L@/$2}
  a=${a//@I@/$ITERATIONS}
  a=${a//@E@/$3}
  if [[ $APP == heat ]]; then echo "$1 $a"; else echo "--config $1 $a"; fi
}

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
  if [[ $APP == proxy ]]; then
    "$ECLUSE" profile -o "$OUT/profile.json" --cores 1,2 --nodes 1 --ranks-per-node 1 \
      --iterations "$PROFILE_ITERATIONS" --global "$GLOBAL" --repeats "$PROFILE_REPEATS" \
      --bandwidth --writers 1,2 --output-every 5 2>&1 | tee "$OUT/profile.log"
  else   # the application itself, 1 client (heat: 1 and 2), from its run reports
    cores=1; [[ $APP == heat ]] && cores=1,2
    cp "$CFG_TP" "$SCRATCH/profile.xml"
    # shellcheck disable=SC2046
    (cd "$SCRATCH" && "$ECLUSE" profile -o "$OUT/profile.json" --cores "$cores" --nodes 1 \
      --ranks-per-node 1 --iterations "$PROFILE_ITERATIONS" --repeats "$PROFILE_REPEATS" \
      --bandwidth --writers "$cores" --output-every 1 -- "$BIN" \
      $(ITERATIONS='{iterations}' app_args "$SCRATCH/profile.xml" "" 1) \
      2>&1 | tee "$OUT/profile.log")
  fi
  echo "profile: other processes $(busy_cpus) CPUs after" | tee -a "$OUT/load.log"
fi

# --- 2. configurations -----------------------------------------------------------------------
# All three from proxy-tp.xml, only <architecture> changed (the checked-in DC/DN configurations
# use 2-rank virtual nodes and may change): DC = 1 client + 1 dedicated core per virtual node of
# 2 ranks, DN = virtual nodes of 1 rank, one of them dedicated; 64 MiB buffer in both.
TP_LINE='<dedicated cores="0" nodes="0"/>'
grep -q "$TP_LINE" "$CFG_TP"
BUF='<buffer size="64MiB"/>'
grep -q '<buffer' "$CFG_TP" && BUF=''   # heat names its buffer already (64 MiB)
cp "$CFG_TP" "$SCRATCH/tp.xml"
sed "s#$TP_LINE#<dedicated cores=\"1\" nodes=\"0\"/>$BUF<virtual-nodes ranks-per-node=\"2\"/>#" \
  "$CFG_TP" >"$SCRATCH/dc.xml"
sed "s#$TP_LINE#<dedicated cores=\"0\" nodes=\"1\"/>$BUF<virtual-nodes ranks-per-node=\"1\"/>#" \
  "$CFG_TP" >"$SCRATCH/dn.xml"
mkdir -p "$OUT/configs"
cp "$SCRATCH"/{tp,dc,dn}.xml "$OUT/configs/"

# name ranks config local
CONFIGS=("tp1 1 tp.xml $GLOBAL" "tp2 2 tp.xml $HALF" "dc 2 dc.xml $GLOBAL" "dn 2 dn.xml $GLOBAL")
[[ $APP == vpic || $APP == vorpal ]] && CONFIGS=("${CONFIGS[0]}" "${CONFIGS[2]}" "${CONFIGS[3]}")

run_one() {  # name ranks config local every rep
  local name=$1 ranks=$2 cfg=$3 local=$4 every=$5 rep=$6
  local dir="$SCRATCH/run" report="$OUT/reports/$name-e$every-r$rep.json"
  # Every run starts with no dirty pages pending (as `ecluse profile`'s runs do): else the
  # previous runs' gigabytes make the kernel throttle this run's writes to the disk's speed, and
  # its I/O time depends on the order of the runs (TP, every 5: 22 ms per output after a sync,
  # 47-51 ms in a series of runs).
  rm -rf "$dir" && mkdir -p "$dir" && sync
  # shellcheck disable=SC2046
  (cd "$dir" && ECLUSE_REPORT="$report" "$ECLUSE_MPIEXEC" -n "$ranks" "$BIN" \
    $(app_args "$SCRATCH/$cfg" "$local" "$every") >stdout.txt 2>stderr.txt) ||
    { cat "$dir/stderr.txt" >&2; return 1; }
  { grep '^{' "$dir/stdout.txt" || echo '{}'; } | tail -1 |
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
"$ECLUSE_VENV/bin/python" "$HERE/table.py" "$OUT/profile.json" "$OUT"/reports/*.json \
  --app "$APP" >"$OUT/table.md"
cat "$OUT/table.md"
