#!/usr/bin/env bash
# DN message memory on transparent huge pages (ECLUSE_HUGE_PAGES=1, src/dn/BufferPool) against
# normal pages (the default), side by side in one run: bench/approach_compare --approach dn
# (1 client node + 1 dedicated node, 40 ms of compute between writes, 16 iterations, receive
# memory of 3 iterations), alternating the two settings REPS times per block size. Prints one
# JSON object: per size and setting the client's first write (the page faults of fresh message
# memory), its write p50 and the end-to-end time, medians over the repeats, and huge / normal.
#   bench/dn_huge_pages.sh [--sizes "16 64"] [--reps 4] > result.json
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/env.sh"
sizes="16 64"
reps=4
while (($#)); do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "usage: bench/dn_huge_pages.sh [--sizes \"16 64\"] [--reps N]" >&2; exit 2 ;;
  esac
done
bench=$ECLUSE_BUILD/bench/approach_compare
[[ -x $bench ]] || { echo "dn_huge_pages: $bench not built" >&2; exit 2; }
tmp=$(mktemp -d /tmp/ecluse-hugepages.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
quiet_wait=${ECLUSE_BENCH_QUIET_WAIT:-60}
source "$ECLUSE_ROOT/bench/quiet.sh"  # wait_quiet

for mib in $sizes; do
  for ((rep = 0; rep < reps; rep++)); do
    for huge in 1 0; do
      rm -rf "$tmp/out" && mkdir -p "$tmp/out" && sync
      wait_quiet >/dev/null
      (cd "$tmp" && ECLUSE_HUGE_PAGES=$huge "$ECLUSE_MPIEXEC" -n 2 "$bench" --approach dn \
        --dir "$tmp/out" --mib "$mib" --iterations 16 --compute-ms 40 --buffer-iterations 3) \
        >"$tmp/run-$mib-$huge-$rep.json"
    done
  done
done

python3 - "$tmp" "$sizes" "$reps" <<'EOF'
import json, statistics, sys
tmp, sizes, reps = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
out = {"benchmark": "dn_huge_pages",
       "setup": "approach_compare --approach dn, 2 ranks (1 client node + 1 dedicated node), "
                "16 iterations, 40 ms compute, receive memory of 3 iterations; huge: "
                "ECLUSE_HUGE_PAGES=1 (message memory of 2 MiB and more mapped with MADV_HUGEPAGE), "
                "normal: the default (new[]); the two alternate; medians over the repeats",
       "thp_enabled": open("/sys/kernel/mm/transparent_hugepage/enabled").read().strip(),
       "sizes": {}}
for mib in sizes:
    row = {}
    for huge, name in (("1", "huge"), ("0", "normal")):
        runs = [json.load(open(f"{tmp}/run-{mib}-{huge}-{r}.json")) for r in range(reps)]
        row[name] = {
            "write_first_ms": statistics.median(r["write_first_ms"] for r in runs),
            "write_p50_ms": statistics.median(r["write_ms"]["p50"] for r in runs),
            "end_to_end_s": statistics.median(r["end_to_end_s"] for r in runs),
            "write_first_ms_all": [r["write_first_ms"] for r in runs],
            "end_to_end_s_all": [r["end_to_end_s"] for r in runs]}
    row["huge_over_normal"] = {k: row["huge"][k] / row["normal"][k]
                               for k in ("write_first_ms", "write_p50_ms", "end_to_end_s")}
    out["sizes"][f"{mib}MiB"] = row
print(json.dumps(out, indent=1))
EOF
