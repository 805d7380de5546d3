"""Re-derives a profile's approach terms from the runs it stored (`approaches.<kind>.points`),
with the current estimator, without running anything again:

    refit_terms.py PROFILE [-o OUT]      (default: PROFILE itself)

Used when the estimator changes: the study of 2026-11-25 on the second machine was profiled
with the least-squares fit over every run, then re-derived with the median of each output
interval's repeats (docs/model.md, "Approach terms")."""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
from ecluse import profile as prof  # noqa: E402
from ecluse.cli import approach_terms_text  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile")
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    doc = prof.load_profile(args.profile)
    if not doc.get("approaches"):
        print(f"{args.profile}: no approach runs to refit", file=sys.stderr)
        return 2
    points = {kind: terms["points"] for kind, terms in doc["approaches"].items()}
    doc["approaches"] = prof.approach_terms(doc, points, int(doc.get("cpus") or 2))
    for kind, terms in prof.app_model(doc).terms:
        print(f"approach {kind.upper()}: {approach_terms_text(terms)}")
    pathlib.Path(args.output or args.profile).write_text(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
