"""The README's demo, after the example check of scripts/demo.sh: the CM1-like proxy under TP, DC
and DN on one problem (the harness's demo matrix), then the advisor's prediction for the same
workload beside what was measured."""
import json
import os
import pathlib
import subprocess
import sys

import harness

ECLUSE = pathlib.Path(sys.executable).with_name("ecluse")
LABELS = {"ecluse-tp": "TP", "ecluse-dc": "DC(1)", "ecluse-dn": "DN"}


def bytes_per_output():
    """The demo problem's output: every field of the global grid, in doubles."""
    nx, ny, nz = (int(n) for n in harness.DEMO_GRID.split("x"))
    return nx * ny * nz * 8 * harness.DEMO_CASE["variables"]


def advise(out):
    """Profiles the proxy without output, then asks the model; returns the recommendation."""
    profile = out / "profile.json"
    case = harness.DEMO_CASE
    subprocess.run([str(ECLUSE), "profile", "-o", str(profile), "--global", harness.DEMO_GRID,
                    "--iterations", "20", "--bandwidth"], check=True)
    result = subprocess.run(
        [str(ECLUSE), "advise", "--profile", str(profile), "--nodes", "2", "--cores-per-node",
         "2", "--host-cpus", str(os.cpu_count()), "--iterations", str(case["iterations"]),
         "--output-every", str(case["output_every"]), "--bytes-per-output",
         str(bytes_per_output())], check=True, capture_output=True, text=True)
    print(result.stdout, end="")
    return least_energy_rows(result.stdout)


def least_energy_rows(text):
    """The approaches of the advisor's table whose predicted energy is the lowest (ties kept)."""
    rows = {}
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("approach")) + 1
    for line in lines[start:]:
        tokens = line.split()
        if len(tokens) < 7 or tokens[0].endswith(":"):
            break
        rows[tokens[0]] = float(tokens[6])
    best = min(rows.values())
    return [name for name, joules in rows.items() if joules <= best * (1 + 1e-9)]


def measured_least_energy(results):
    """The approach whose median energy was lowest in the comparison, with its joules."""
    aggregates = json.loads(pathlib.Path(results).read_text())["aggregates"]
    energies = {a["approach"]: a["median"].get("energy_j") for a in aggregates}
    energies = {k: v for k, v in energies.items() if v is not None}
    best = min(energies, key=energies.get)
    return LABELS.get(best, best), energies[best]


def main(out_dir):
    out = pathlib.Path(out_dir)
    print("== the CM1-like proxy under TP, DC and DN: one problem, 4 ranks, 3 repetitions each")
    results = harness.run_demo(out)
    print("\n== the advisor: profile the proxy without output, then predict the same workload")
    predicted = advise(out)
    print("\n== each run's prediction beside its measurement")
    document = json.loads(pathlib.Path(results).read_text())
    print(harness.predictions(document, out, out / "profile.json"), end="")
    measured, joules = measured_least_energy(results)
    agree = measured.split("(")[0] in {p.split("(")[0] for p in predicted}
    print(f"\nmeasured least energy: {measured} ({joules:.1f} J, median); advisor's least "
          f"energy: {' = '.join(predicted)} ({'agrees' if agree else 'differs'}). Energy is "
          "modelled on this machine (no counters): see the labels.")
    print(f"everything is in {out}: results.json, report.md, plots (*.png), profile.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "out/demo/compare"))
