# Sourced by bench/run.sh, bench/adios2.sh and bench/accuracy/run_accuracy.sh: wait for an idle
# machine before a measurement; pause the VM's free page reporting while the benchmark runs.
# Uses $quiet_wait (seconds, set by the caller from ECLUSE_BENCH_QUIET_WAIT).

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

# Free page reporting (bench/page_reporting.py): a VM's guest gives memory free for 2 s back to
# the host, and the next run faults it in again (4-5x slower page-cache writes measured here
# after the pauses wait_quiet makes). Paused for the whole benchmark, restored by
# restore_page_reporting (call it from the EXIT trap); page_reporting_note says what was done.
page_reporting_order=-
page_reporting_note="free page reporting not checked"
pause_page_reporting() {
  local lines
  if lines=$(python3 "$ECLUSE_ROOT/bench/page_reporting.py" pause); then
    page_reporting_order=$(head -1 <<<"$lines")
    page_reporting_note=$(tail -1 <<<"$lines")
  fi
  echo "bench: $page_reporting_note" >&2
}
restore_page_reporting() {
  python3 "$ECLUSE_ROOT/bench/page_reporting.py" restore "$page_reporting_order" || true
  page_reporting_order=-
}
