"""The README's demo, after the example check of scripts/demo.sh: the CM1-like proxy under TP, DC
and DN on one problem (the harness's demo matrix), then the advisor's prediction for the same
workload beside what was measured."""
import json
import os
import pathlib
import subprocess
import sys

import harness
import page_reporting  # noqa: E402  (bench/, put on the path by harness)

ECLUSE = pathlib.Path(sys.executable).with_name("ecluse")
LABELS = {"ecluse-tp": "TP", "ecluse-dc": "DC(1)", "ecluse-dn": "DN", "ecluse-dn-1": "DN(1:1)"}
# The demo's 2 ranks as the advisor's platforms (nodes, cores per node), virtual nodes of this
# host, each with the approaches the demo runs on it: TP (2 clients on one host: `ecluse
# validate` matches its runs to the one-node platform) and DC(1) on one node of 2 cores, DN(1:1)
# on two nodes of 1 core. The advisor's table for two nodes also has a TP row (two nodes of one
# client each), which the demo does not run: it is left out, so that it never stands for the
# measured TP.
PLATFORMS = ((("1", "2"), ("TP", "DC(1)")), (("2", "1"), ("DN(1:1)",)))


def bytes_per_output():
    """The demo problem's output: every field of the global grid, in doubles."""
    nx, ny, nz = (int(n) for n in harness.DEMO_GRID.split("x"))
    return nx * ny * nz * 8 * harness.DEMO_CASE["variables"]


def advise(out):
    """Profiles the proxy (compute-only scaling, then output runs of one client under TP, DC(1)
    and DN(1:1)), then asks the model for the demo's workload on the platforms its 2 ranks
    make; returns the least-energy approaches of all of them (ties kept)."""
    profile = out / "profile.json"
    case = harness.DEMO_CASE
    subprocess.run([str(ECLUSE), "profile", "-o", str(profile), "--global", harness.DEMO_GRID,
                    "--cores", "1,2", "--nodes", "1", "--ranks-per-node", "1", "--iterations",
                    str(case["iterations"]), "--repeats", "3", "--bandwidth", "--writers", "1,2",
                    "--output-every", str(case["output_every"])], check=True)
    tables = []
    for (nodes, cores), _ in PLATFORMS:
        result = subprocess.run(
            [str(ECLUSE), "advise", "--profile", str(profile), "--nodes", nodes,
             "--cores-per-node", cores, "--host-cpus", str(os.cpu_count()), "--iterations",
             str(case["iterations"]), "--output-every", str(case["output_every"]),
             "--bytes-per-output", str(bytes_per_output())], check=True, capture_output=True,
            text=True)
        print(result.stdout, end="")
        tables.append(result.stdout)
    return lowest(measured_rows(tables))


def measured_rows(tables):
    """{approach: predicted energy} of the approaches the demo runs, each from the advisor's
    table of the platform it runs on (`tables` in the order of PLATFORMS)."""
    rows = {}
    for text, (_, approaches) in zip(tables, PLATFORMS):
        rows.update({name: joules for name, joules in table_rows(text).items()
                     if name in approaches})
    return rows


def table_rows(text):
    """{approach: predicted energy} of the advisor's table."""
    rows = {}
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("approach")) + 1
    for line in lines[start:]:
        tokens = line.split()
        if len(tokens) < 7 or tokens[0].endswith(":"):
            break
        rows[tokens[0]] = float(tokens[6])
    return rows


def lowest(rows):
    """The names of the lowest energy (ties kept)."""
    best = min(rows.values())
    return [name for name, joules in rows.items() if joules <= best * (1 + 1e-9)]


def least_energy_rows(text):
    """The approaches of the advisor's table whose predicted energy is the lowest (ties kept)."""
    return lowest(table_rows(text))


def measured_energies(results):
    """Per approach label: (median energy, run-to-run spread (max - min) / median)."""
    aggregates = json.loads(pathlib.Path(results).read_text())["aggregates"]
    out = {}
    for a in aggregates:
        med = a["median"].get("energy_j")
        low, high = a.get("min", {}).get("energy_j"), a.get("max", {}).get("energy_j")
        if med:
            spread = (high - low) / med if low is not None and high is not None else 0.0
            out[LABELS.get(a["approach"], a["approach"])] = (med, spread)
    return out


def _family(label):
    return label.split("(")[0]


def verdict(predicted, measured):
    """The demo's last line: the advisor's least-energy pick against the measured one; a
    difference smaller than the repeats' spread is said to be within the noise."""
    best = min(measured, key=lambda k: measured[k][0])
    joules = measured[best][0]
    head = (f"measured least energy: {best} ({joules:.1f} J, median); advisor's least energy: "
            f"{' = '.join(predicted)}")
    picks = [p for p in measured if _family(p) in {_family(q) for q in predicted}]
    if _family(best) in {_family(q) for q in predicted}:
        return head + ": agrees"
    if not picks:
        return head + ": not measured"
    pick = min(picks, key=lambda k: measured[k][0])
    gap = measured[pick][0] / joules - 1
    noise = max(measured[pick][1], measured[best][1])
    if gap <= noise:
        return (head + f": differs, but {pick} measured only {gap:.1%} more, within the "
                f"run-to-run noise ({noise:.1%} spread of the repeats): the runs cannot tell "
                "them apart")
    return head + f": DISAGREES ({pick} measured {gap:.1%} more, beyond the {noise:.1%} noise)"


def main(out_dir):
    # The profile's runs and the measured runs alike, so that neither pays the host's faults
    # on memory given back between runs (bench/page_reporting.py) and the other not.
    with page_reporting.paused() as memory:
        print(memory)
        return compare(pathlib.Path(out_dir))


def compare(out):
    print(f"== the CM1-like proxy under TP, DC and DN: one problem, {harness.DEMO_RANKS} ranks "
          "(at most 2 busy processes: the times mean something on 2 CPUs), 3 repetitions each")
    results = harness.run_demo(out)
    print("\n== the advisor: profile the proxy (without output, then one client under each "
          "approach), then predict the same workload")
    predicted = advise(out)
    print("\n== each run's prediction beside its measurement")
    document = json.loads(pathlib.Path(results).read_text())
    print(harness.predictions(document, out, out / "profile.json"), end="")
    print("\n" + verdict(predicted, measured_energies(results)) + ". Energy is modelled on "
          "this machine (no counters): see the labels.")
    print(f"everything is in {out}: results.json, report.md, plots (*.png), profile.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "out/demo/compare"))
