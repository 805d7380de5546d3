"""The approach terms (docs/model.md, "Approach terms") tried on a stored accuracy study, without
new runs: the study's profile plus terms fitted from some of its own runs (one client under TP,
DC(1), DN(1:1), as the profile's approach runs would measure them), validated against every run.

    approach_terms_offline.py STUDY_DIR e5-r1,e20-r1 [--app proxy] [-o PROFILE]

STUDY_DIR holds profile.json, runs.jsonl and reports/ (run_accuracy.sh's layout); the picks name
the runs (tp1-, dc-, dn- + pick) that stand for the approach runs. Prints each kind's terms and
table.py's table; writes the augmented profile (default: STUDY_DIR/profile-offline-terms.json).
"""
import argparse
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))
from ecluse import approach_runs as ar  # noqa: E402
from ecluse import profile as prof  # noqa: E402
from ecluse.report import load  # noqa: E402

NAMES = {"tp": "tp1", "dc": "dc", "dn": "dn"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study")
    parser.add_argument("picks", help="comma-separated run suffixes, e.g. e5-r1,e20-r1")
    parser.add_argument("--app", default="proxy")
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    study = pathlib.Path(args.study)
    doc = prof.load_profile(str(study / "profile.json"))
    runs = {}
    for line in (study / "runs.jsonl").read_text().splitlines():
        entry = json.loads(line)
        runs[entry["run"]] = entry
    points = {}
    for run in ar.APPROACH_RUNS:
        for pick in args.picks.split(","):
            name = f"{NAMES[run.kind]}-{pick}"
            report = load(str(study / "reports" / f"{name}.json"))
            points.setdefault(run.kind, []).append(
                ar.point(run, report, runs.get(name, {}), report.output_every() or 1))
    doc["approaches"] = prof.approach_terms(doc, points, int(doc.get("cpus") or 2))
    for kind, terms in doc["approaches"].items():
        shown = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in terms.items()
                 if k not in ("points", "cpu_percent")}
        print(f"{kind}: {shown}")
    out = pathlib.Path(args.output or study / "profile-offline-terms.json")
    out.write_text(json.dumps(doc, indent=1) + "\n")
    reports = sorted(str(p) for p in (study / "reports").glob("*.json"))
    return subprocess.call([sys.executable, str(HERE / "table.py"), str(out), *reports,
                            "--app", args.app])


if __name__ == "__main__":
    sys.exit(main())
